/**
 * Failures the command reports as one line on stderr (and, for a server that died, the lines
 * it last wrote to its stderr). The exit code tells scripts what kind of
 * failure it was: 2 for a mistake in the command line, 1 for anything that went wrong at run
 * time (the server refused, a tool failed, a timeout), 130 for an interrupt.
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** 128 + SIGINT, what shells report for a command stopped with Ctrl-C. */
export const EXIT_INTERRUPTED = 130;

export class CliError extends Error {
  override name = "CliError";
  readonly exitCode: number;
  /** Lines shown under the message whatever the verbosity (a crashed server's last stderr). */
  readonly details: readonly string[];

  constructor(message: string, exitCode = EXIT_FAILURE, details: readonly string[] = []) {
    super(message);
    this.exitCode = exitCode;
    this.details = details;
  }
}

/** The command line itself is wrong: exit code 2. */
export class UsageError extends CliError {
  override name = "UsageError";

  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}
