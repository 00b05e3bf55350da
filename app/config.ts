/**
 * The process configuration: platform's sections (platform/config.ts) and each module's `settings` section, loaded by
 * its own loader. A composition file (it reads MODULES): the entry points, scripts and tests call it and pass the
 * config down; nothing in platform/ or a module imports it.
 */
import { loadPlatformConfig, type AppConfig, type ModuleSettings } from '../platform/config';
import { MODULES } from './modules';

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type SectionOf<M> = M extends {
  readonly settings: { readonly section: infer S extends string; load(env: never): infer T };
}
  ? { [K in S]: T }
  : never;
/** The modules' sections, as their `settings` load them. */
type Sections = UnionToIntersection<SectionOf<(typeof MODULES)[number]>>;

/** Process configuration from the environment, read once; every variable is listed in the README. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const platform = loadPlatformConfig(env);
  // Typed as what the modules' loaders return: a section of ModuleSettings no module loads (or loads as another
  // type) fails tsc here.
  const sections: ModuleSettings = Object.fromEntries(
    MODULES.flatMap((m) => (m.settings ? [[m.settings.section, m.settings.load(env)]] : [])),
  ) as Sections;
  return { ...platform, ...sections };
}
