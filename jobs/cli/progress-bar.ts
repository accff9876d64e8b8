/**
 * The progress bar of the long-running commands: on stderr, so stdout stays data, and drawn only
 * where a person watches (cli-progress writes nothing to a stream that is not a terminal).
 */
import cliProgress from 'cli-progress';

/** `format` uses cli-progress placeholders, e.g. `{bar} {value}/{total} days`. */
export function progressBar(format: string, stream: NodeJS.WritableStream = process.stderr): cliProgress.SingleBar {
  return new cliProgress.SingleBar({ stream: stream as NodeJS.WriteStream, format, hideCursor: true }, cliProgress.Presets.shades_classic);
}
