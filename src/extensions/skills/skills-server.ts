/**
 * The server half of the Skills extension as one installable object: it declares
 * `io.modelcontextprotocol/skills` (with `directoryRead`), answers `skills/list`, `skills/get`
 * and `resources/directory/read`, and on setup serves the files through ordinary resources:
 * each SKILL.md listed (named and described by its frontmatter), every other file through one
 * `skill://{+path}` template. `reload()` rescans and swaps the catalog in one step.
 */
import type { JsonObject } from "../../jsonrpc/types.js";
import type { ExtensionMethod } from "../../protocol/extension.js";
import type { CacheHint } from "../../protocol/mcp-types.js";
import type { HandlerContext } from "../../server/context.js";
import type { McpServer, ServerExtension } from "../../server/index.js";
import type { SkillCatalog } from "./catalog.js";
import { getSkill, listSkills, readDirectory, readSkillFile } from "./server-methods.js";
import {
  DIRECTORY_READ,
  SKILL_URI_SCHEME,
  SKILLS_EXTENSION,
  SKILLS_GET,
  SKILLS_LIST,
  type SkillsCapability,
} from "./wire.js";

export interface SkillsServerOptions {
  /** Skills per `skills/list` page and children per directory page. Default: the server's pageSize. */
  pageSize?: number;
  /**
   * The `ttlMs` and `cacheScope` of `skills/list` and `skills/get` results (2026-07-28, where
   * they are required). Default `{ ttlMs: 0, cacheScope: "public" }`, like the base lists.
   */
  cache?: CacheHint;
}

const DEFAULT_CACHE: CacheHint = { ttlMs: 0, cacheScope: "public" };
/** Every skill file that is not a SKILL.md is read through this template. */
const FILES_TEMPLATE = `${SKILL_URI_SCHEME}://{+path}`;

export class SkillsServer implements ServerExtension {
  readonly id = SKILLS_EXTENSION;
  readonly capability: JsonObject & SkillsCapability = { directoryRead: true };
  readonly methods: Readonly<Record<string, ExtensionMethod<HandlerContext>>>;
  private current: SkillCatalog;
  private readonly load: () => Promise<SkillCatalog>;
  private readonly options: SkillsServerOptions;
  /** Per server set up: the page size it uses, and how to take back what setup registered. */
  private readonly hosts = new Map<McpServer, { pageSize?: number; unregister: (() => void)[] }>();

  /** `load` makes the catalog again on reload() (a directory scan, say). */
  constructor(
    catalog: SkillCatalog,
    load: () => Promise<SkillCatalog>,
    options: SkillsServerOptions = {},
  ) {
    this.current = catalog;
    this.load = load;
    this.options = options;
    this.methods = {
      [SKILLS_LIST]: (params, context) =>
        this.cacheable(listSkills(this.current, params, this.pageSize()), context),
      [SKILLS_GET]: (params, context) => this.cacheable(getSkill(this.current, params), context),
      [DIRECTORY_READ]: (params) => readDirectory(this.current, params, this.pageSize()),
    };
  }

  /** The skills served now. */
  get catalog(): SkillCatalog {
    return this.current;
  }

  /** Why skills found were not served (see SkillCatalog.problems). */
  get problems(): readonly string[] {
    return this.current.problems;
  }

  /** Registers the skill files as resources on `server` (called by server.install). */
  setup(server: McpServer): void {
    const unregister = [
      server.resourceTemplate(
        {
          uriTemplate: FILES_TEMPLATE,
          name: "skill-files",
          description: "The files of the skills this server serves (see skills/list)",
        },
        (uri, _variables, context) => readSkillFile(this.current, uri, context.era),
      ),
      ...this.registerSkillFiles(server),
    ];
    this.hosts.set(server, { pageSize: server.options.pageSize, unregister });
  }

  /**
   * Builds the catalog again (rescans the folder) and serves the new one: resources that went
   * away are removed and new ones added, so subscribed clients hear `list_changed`.
   */
  async reload(): Promise<void> {
    const next = await this.load();
    this.current = next;
    for (const [server, host] of this.hosts) {
      // The template (first) stays; the SKILL.md resources are registered again.
      for (const remove of host.unregister.splice(1)) remove();
      host.unregister.push(...this.registerSkillFiles(server));
    }
  }

  private registerSkillFiles(server: McpServer): (() => void)[] {
    return this.current
      .skillResources()
      .map((resource) =>
        server.resource(resource, (uri, context) => readSkillFile(this.current, uri, context.era)),
      );
  }

  private pageSize(): number | undefined {
    if (this.options.pageSize !== undefined) return this.options.pageSize;
    for (const host of this.hosts.values()) return host.pageSize;
    return undefined;
  }

  /** ttlMs and cacheScope on a modern result (CacheableResult); legacy results go as they are. */
  private cacheable(result: JsonObject, context: HandlerContext): JsonObject {
    if (context.era === "modern") Object.assign(result, this.options.cache ?? DEFAULT_CACHE);
    return result;
  }
}
