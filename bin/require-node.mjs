/**
 * Preloaded by the npm scripts (`node --import ./bin/require-node.mjs src/app/main.ts`): refuses
 * an unsupported Node.js with one line and exit 78 (EX_CONFIG, sysexits.h: restarting will not
 * help) before the .ts entry is loaded. Plain JavaScript on purpose: a Node.js without type
 * stripping cannot load any .ts file, and `node src/app/main.ts` on it only says
 * `Unknown file extension ".ts"` (ERR_UNKNOWN_FILE_EXTENSION), naming no version.
 *
 * A preload rather than a launcher that imports the entry: the entry stays the main module, so
 * its `import.meta.main` is true and signals reach it directly.
 *
 * The same rule as src/lib/node-version.ts (which the entries check too, for the Node.js versions
 * that load .ts but lack import.meta.main); test/e2e/node-version.test.ts keeps the two in step.
 */
const SUPPORTED_NODE = '^22.19.0 || >=24.2.0';
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const supported = major === 22 ? minor >= 19 : major === 24 ? minor >= 2 : major >= 25;
if (!supported) {
  process.stderr.write(
    `this project needs Node.js ${SUPPORTED_NODE} (TypeScript type stripping and import.meta.main); this is Node.js ${process.versions.node}: install a supported Node.js (the project pins 24, see .nvmrc or package.json "engines")\n`,
  );
  process.exit(78);
}
