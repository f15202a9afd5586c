/**
 * The error a web build's stand-in for a Node-only export throws when used: the export exists in
 * every build (so imports resolve alike), and says what to use where it cannot work.
 */
export function nodeOnly(what: string, instead: string): Error {
  return new Error(`${what} needs Node (or Bun, Deno) and is not in this web build; ${instead}`);
}

/** A stand-in class whose constructor throws nodeOnly(name, instead). */
export function nodeOnlyClass(name: string, instead: string): new (...args: never[]) => object {
  return class {
    constructor() {
      throw nodeOnly(name, instead);
    }
  };
}
