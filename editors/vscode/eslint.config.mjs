// Lint rules for the extension: typescript-eslint's recommended set plus a few that catch
// real bugs in async command handlers (floating promises would hide server errors).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "out/**", "node_modules/**", "*.mjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      eqeqeq: ["error", "always", { null: "ignore" }],
    },
  },
  {
    // node:test tracks the promises describe/it return; fakes are async to match real APIs.
    files: ["src/spec/**/*.ts"],
    rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/require-await": "off" },
  },
);
