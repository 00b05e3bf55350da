/**
 * The automations module's definition schemas, a public surface of their own: sequences build their graph and node
 * schemas on them. Pure (zod and the module's pure siblings only): importing them loads no engine, service or entity,
 * so a module the engine itself uses (sequences) can import them without an import cycle through index.ts.
 */
export {
  CONDITION_OPERATORS,
  DEFAULT_EXECUTION_SETTINGS,
  edgeSchema,
  executionSettingsPatchSchema,
  executionSettingsSchema,
  FAILURE_BEHAVIORS,
  NODE_ID_RE,
  SEQUENCE_TRIGGERS,
} from './definition.schemas';
export { aiSchemaOf, conditionValueProblem } from './node-data.schemas';
export { graphEdgeView } from './automations.views';
