/**
 * The Node.js versions this project runs on, and the one line that says so on any other.
 *
 * The code is run as TypeScript by Node itself and its commands start with `if (import.meta.main)`:
 *   type stripping on by default   v22.18.0, v23.6.0
 *   import.meta.main               v22.18.0, v24.2.0
 *   undici 8 (the outbound guard)  v22.19.0
 * so the 22 line from 22.19 and everything from 24.2. On 23.6–24.1 a .ts file loads but
 * `import.meta.main` is undefined, and a command would silently do nothing; below 22.18 (or on
 * 23.0–23.5) a .ts file cannot even load, which bin/require-node.mjs reports before it is tried.
 * Keep the three copies in step: package.json "engines", SUPPORTED_NODE below and
 * bin/require-node.mjs (test/e2e/node-version.test.ts compares them).
 */

/** The semver range of package.json "engines".node. */
export const SUPPORTED_NODE = '^22.19.0 || >=24.2.0';

/** Whether `version` ("24.3.0", "v22.18.1") is in SUPPORTED_NODE. */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major === 22 ? minor >= 19 : major === 24 ? minor >= 2 : major >= 25;
}

/** The one line for stderr when `version` is not supported, else undefined. */
export function unsupportedNodeLine(version: string): string | undefined {
  if (isSupportedNode(version)) return undefined;
  return `this project needs Node.js ${SUPPORTED_NODE} (TypeScript type stripping and import.meta.main); this is Node.js ${version.replace(/^v/, '')}: install a supported Node.js (the project pins 24, see .nvmrc or package.json "engines")`;
}
