/** How protectResource reports a failure to check a token (not a bad token: the check itself). */
import { writeStderr } from "../../platform/stderr.js";
import { LogThrottle } from "../../text/log-throttle.js";
import { printableLine } from "../../text/printable.js";

/** The window of the default (stderr) failure reports. */
const REPORT_INTERVAL_MS = 10_000;

/** Failures to check a token, to `onError` or, by default, to stderr. */
export function failureReporter(
  onError: ((error: Error) => void) | undefined,
): (error: unknown) => void {
  let stderrReports: LogThrottle<string> | undefined;
  return (error) => {
    const failure = error instanceof Error ? error : new Error(String(error));
    if (onError) {
      onError(failure);
      return;
    }
    // Every made-up token can cause a failure (a full introspection queue, an unreachable
    // issuer): one line per kind per window, not one per request.
    stderrReports ??= new LogThrottle<string>({
      intervalMs: REPORT_INTERVAL_MS,
      emit: (line) => writeStderr(line),
      summary: (kind, suppressed, intervalMs) =>
        `mcpwire auth: ${suppressed} more failures to check an access token (${kind}) in the last ${intervalMs / 1000} s\n`,
    });
    stderrReports.log(
      failure.name,
      `mcpwire auth: cannot check an access token: ${printableLine(failure.message)}\n`,
    );
  };
}
