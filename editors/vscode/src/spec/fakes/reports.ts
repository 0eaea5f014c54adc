/**
 * Reports as the real server returns them, facts and words (editors/fixtures/reports.json,
 * which tests/editors/test_report_fixtures.py keeps equal to what lsp_server/report.py writes).
 * The fake server answers with these, so the extension's tests show the server's own words.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

import { parseReport, type Report } from "../../report";

// out/spec/fakes → editors/fixtures
const file = path.resolve(__dirname, "..", "..", "..", "..", "fixtures", "reports.json");

/** The raw JSON of each stored report, by name: applied, checked, refused, partial. */
export const rawReports: Record<string, Record<string, unknown>> = JSON.parse(readFileSync(file, "utf8")).reports;

export function serverReport(name: string): Report {
  const report = parseReport(rawReports[name]);
  if (!report) {
    throw new Error(`editors/fixtures/reports.json has no report ${name}`);
  }
  return report;
}
