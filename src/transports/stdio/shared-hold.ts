/**
 * A process-wide change (the console redirection, the stdout guard) that nested holders share:
 * the first hold makes it, the last release undoes it, and each release counts once.
 */
export function sharedHold(install: () => void, uninstall: () => void): () => () => void {
  let holders = 0;
  return () => {
    if (holders === 0) install();
    holders += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      holders -= 1;
      if (holders === 0) uninstall();
    };
  };
}
