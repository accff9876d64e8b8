/** The problems `loadConfig` names for an environment, or none: what a ConfigError says, line by line. */
import { ConfigError, loadConfig } from '../../src/app/config.ts';

export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
