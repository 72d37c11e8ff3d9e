import { Value } from '@sinclair/typebox/value';
import type { PluginDef } from './contract';
import { ConfigError } from '../config';

/**
 * A plugin's configuration from the environment: each field of its `config` schema is read from
 * `SVC_<PLUGIN>_<FIELD>` (upper case), or from the field's own `env` name when it follows an
 * established convention (OPENAI_BASE_URL). Values are converted to the field's type, defaults
 * applied, and the whole checked at boot: a bad value stops the process with a message naming the
 * variable, rather than failing the first request that needs it.
 */
export function readPluginConfig(plugin: PluginDef, env: Record<string, string | undefined>): Record<string, any> {
  const schema = plugin.config;
  if (!schema) return {};
  const raw: Record<string, unknown> = {};
  const varOf: Record<string, string> = {};
  for (const [field, prop] of Object.entries<any>(schema.properties)) {
    const name = prop.env ?? `SVC_${plugin.name}_${field}`.toUpperCase();
    varOf[field] = name;
    const text = env[name];
    if (text === undefined || text === '') continue;
    raw[field] =
      prop.type === 'integer' || prop.type === 'number'
        ? /^-?\d+(\.\d+)?$/.test(text)
          ? Number(text)
          : text
        : prop.type === 'boolean'
          ? text === 'true' || text === '1'
          : text;
  }
  const value = Value.Default(schema, raw) as Record<string, unknown>;
  const first = Value.Errors(schema, value).First();
  if (first) {
    const field = first.path.split('/')[1];
    throw new PluginConfigError(`Invalid ${varOf[field] ?? plugin.name + ' configuration'}: ${first.message.toLowerCase()}.`);
  }
  return value;
}

export class PluginConfigError extends ConfigError {}
