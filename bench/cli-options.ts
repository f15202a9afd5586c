/**
 * A bench script's command line: its own flags before `--`, and what follows `--` (flags for
 * the process it measures, or the command to run).
 */
export interface BenchArgs {
  /** The script's own flags. */
  own: string[];
  /** What follows `--`; undefined when there is no `--`. */
  after: string[] | undefined;
  /** The word after flag `name` among the script's own, if given. */
  value(name: string): string | undefined;
}

export function benchArgs(all: string[]): BenchArgs {
  const split = all.indexOf("--");
  const own = split < 0 ? all : all.slice(0, split);
  return {
    own,
    after: split < 0 ? undefined : all.slice(split + 1),
    value: (name) => {
      const at = own.indexOf(name);
      return at < 0 ? undefined : own[at + 1];
    },
  };
}
