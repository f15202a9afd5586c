/**
 * Lists a package entry's public surface from tsc's declarations (dist/src/**\/*.d.ts): every
 * exported name with its kind, one per line, sorted. The API snapshot test compares these lists
 * with the committed ones in test/package/api/.
 */
import ts from "typescript";

/** What a name is, as a user of the package meets it. */
function kindOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const flags = target.flags;
  if (flags & ts.SymbolFlags.Class) return "class";
  if (flags & ts.SymbolFlags.Function) return "function";
  if (flags & ts.SymbolFlags.Enum) return "enum";
  if (flags & ts.SymbolFlags.Variable)
    return flags & ts.SymbolFlags.TypeAlias ? "const+type" : "const";
  if (flags & ts.SymbolFlags.Interface) return "interface";
  if (flags & ts.SymbolFlags.TypeAlias) return "type";
  if (flags & ts.SymbolFlags.Namespace) return "namespace";
  return "other";
}

/** `name kind` lines for each entry declaration file, keyed by the file's path. */
export function apiSurfaces(declarationFiles: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram([...declarationFiles], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ["node"],
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const surfaces = new Map<string, string[]>();
  for (const file of declarationFiles) {
    const source = program.getSourceFile(file);
    if (source === undefined) throw new Error(`not in the program: ${file}`);
    const module = checker.getSymbolAtLocation(source);
    const exports = module === undefined ? [] : checker.getExportsOfModule(module);
    const lines = exports.map((symbol) => `${symbol.getName()} ${kindOf(symbol, checker)}`);
    surfaces.set(file, lines.sort());
  }
  return surfaces;
}
