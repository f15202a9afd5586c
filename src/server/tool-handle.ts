import type { SchemaSource } from "./schema-source.js";
import type { ToolDefinition, ToolHandler, ToolOptions } from "./tool-registry.js";

/** What `ToolHandle.update` may change; anything left out stays as it is. */
export interface ToolUpdate<
  I extends SchemaSource = SchemaSource,
  O extends SchemaSource = SchemaSource,
> {
  /** Merged over the current definition (a new `name` renames the tool). */
  definition?: Partial<ToolDefinition<I, O>>;
  handler?: ToolHandler<I, O>;
  /** Replaces the options as a whole. */
  options?: ToolOptions;
}

/**
 * A registered tool, as `server.tool()` returns it. A disabled tool is absent from tools/list
 * and refused on tools/call like an unknown one; clients hear `list_changed` on each change, as
 * for a registration.
 */
export interface ToolHandle<
  I extends SchemaSource = SchemaSource,
  O extends SchemaSource = SchemaSource,
> {
  readonly name: string;
  readonly enabled: boolean;
  enable(): void;
  disable(): void;
  /** Validates as a registration does; on an error the tool stays as it was. */
  update(changes: ToolUpdate<I, O>): void;
  /** For good: enable() and update() throw afterwards. */
  remove(): void;
}

type Register = (
  definition: ToolDefinition<SchemaSource, SchemaSource>,
  handler: ToolHandler<SchemaSource, SchemaSource>,
  options: ToolOptions | undefined,
) => () => void;

/** The handle's state; `register` adds the tool (or replaces one of the same name) and returns its remover. */
export function toolHandle<I extends SchemaSource, O extends SchemaSource>(
  register: Register,
  definition: ToolDefinition<I, O>,
  handler: ToolHandler<I, O>,
  options: ToolOptions | undefined,
): ToolHandle<I, O> {
  let current = { definition, handler, options };
  let unregister: (() => void) | undefined = register(
    definition as ToolDefinition,
    handler as unknown as ToolHandler,
    options,
  );
  let removed = false;
  const usable = (action: string) => {
    if (removed)
      throw new Error(`tool ${current.definition.name} was removed: cannot ${action} it`);
  };
  const add = (next: typeof current) =>
    register(
      next.definition as ToolDefinition,
      next.handler as unknown as ToolHandler,
      next.options,
    );
  return {
    get name() {
      return current.definition.name;
    },
    get enabled() {
      return unregister !== undefined;
    },
    enable() {
      usable("enable");
      unregister ??= add(current);
    },
    disable() {
      unregister?.();
      unregister = undefined;
    },
    update(changes) {
      usable("update");
      const next = {
        definition: { ...current.definition, ...changes.definition } as ToolDefinition<I, O>,
        handler: changes.handler ?? current.handler,
        options: "options" in changes ? changes.options : current.options,
      };
      if (unregister !== undefined) {
        // Same name: the registry replaces the entry in place (one list_changed, same position).
        const replacement = add(next);
        if (next.definition.name !== current.definition.name) unregister();
        unregister = replacement;
      }
      current = next;
    },
    remove() {
      unregister?.();
      unregister = undefined;
      removed = true;
    },
  };
}
