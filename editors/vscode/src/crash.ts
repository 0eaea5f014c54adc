/**
 * What to do when the server process dies. It is restarted with a visible message (never
 * silently), up to a limit within a time window, so a server that crashes on start does not
 * loop forever. Pure: the clock is passed in.
 */

export interface CrashDecision {
  restart: boolean;
  message: string;
}

export class RestartPolicy {
  private crashes: number[] = [];

  constructor(
    private readonly maxRestarts = 4,
    private readonly windowMs = 3 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Called each time the connection closes without us asking. */
  onCrash(): CrashDecision {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c <= this.windowMs);
    this.crashes.push(t);
    const count = this.crashes.length;
    if (count <= this.maxRestarts) {
      return {
        restart: true,
        message:
          `The llm-patch server stopped unexpectedly; restarting it ` +
          `(restart ${count} of ${this.maxRestarts} allowed in ${this.windowMinutes()} minutes). ` +
          `Its log is in Output › LLM Patch.`,
      };
    }
    return {
      restart: false,
      message:
        `The llm-patch server crashed ${count} times in ${this.windowMinutes()} minutes and ` +
        `was not restarted. See Output › LLM Patch, then run "LLM Patch: Restart Server".`,
    };
  }

  /** A deliberate restart (command, settings change) starts the count afresh. */
  reset(): void {
    this.crashes = [];
  }

  private windowMinutes(): number {
    return Math.round(this.windowMs / 60000);
  }
}
