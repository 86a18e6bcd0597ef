import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { quoted } from './text.js';

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/**
 * The one Ajv set-up, for every schema Toolbridge checks: the wire schemas (strict, discriminated
 * unions, `["string","array"]` types), the config schema and callers' answer schemas (`standardFormats:
 * true` adds ajv-formats' checks; callers' schemas pass `strict: false`). Compile once, at load.
 */
export function createAjv(options: Options & { standardFormats?: boolean } = {}): Ajv {
  const { standardFormats, ...rest } = options;
  const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true, discriminator: true, ...rest });
  return standardFormats ? addFormats(ajv) : ajv;
}

/** How a schema error names what it is about. */
export interface SchemaErrorWording {
  /** The whole value ('chat request', 'config'). Default `request`. */
  subject?: string;
  /** A place inside it, from its JSON Pointer (default: dotted, `messages.0.role`). */
  nameOf?(instancePath: string): string;
}

const dotted = (instancePath: string) => instancePath.slice(1).replace(/\//g, '.');

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** Turn the first Ajv error of a check into a message a caller can act on (one describer for every schema). */
export function describeSchemaError(validate: ValidateFunction, wording: SchemaErrorWording | string = {}): string {
  const { subject = 'request', nameOf = dotted } = typeof wording === 'string' ? { subject: wording } : wording;
  const err = validate.errors?.[0];
  if (!err) return `invalid ${subject}`;
  const where = err.instancePath ? nameOf(err.instancePath) : subject;
  switch (err.keyword) {
    case 'required':
      return `${subject} is missing required field "${(err.params as { missingProperty: string }).missingProperty}"${err.instancePath ? ` in ${where}` : ''}`;
    case 'additionalProperties':
      return `${where} has unknown field ${quoted((err.params as { additionalProperty: string }).additionalProperty)}`;
    case 'enum':
      return `${where} must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${where} must be ${JSON.stringify((err.params as { allowedValue: unknown }).allowedValue)}`;
    case 'type': {
      const type = (err.params as { type: string | string[] }).type;
      const types = Array.isArray(type) ? type : String(type).split(',');
      if (types.length === 2 && types.includes('string') && types.includes('array'))
        return `${where} must be a string or an array of parts`;
      return `${where} must be ${types.map((t) => (t === 'null' ? t : article(t))).join(' or ')}`;
    }
    case 'minItems':
    case 'maxItems': {
      const n = (err.params as { limit: number }).limit;
      return `${where} must contain at ${err.keyword === 'minItems' ? 'least' : 'most'} ${n} item${n === 1 ? '' : 's'}`;
    }
    case 'minLength':
      return `${where} must not be empty`;
    case 'maxLength':
      return `${where} must be at most ${(err.params as { limit: number }).limit} characters long`;
    case 'pattern':
      return `${where} is not in the expected form`;
    case 'discriminator': {
      const p = err.params as { error: string; tag: string; tagValue?: unknown };
      return p.error === 'mapping'
        ? `${where}.${p.tag} must be one of the known part types (got ${quoted(String(p.tagValue))})`
        : `${where} must have a "${p.tag}" field`;
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const p = err.params as { comparison: string; limit: number };
      return `${where} must be ${p.comparison} ${p.limit}`;
    }
    default:
      return `${where} ${err.message ?? 'is invalid'}`;
  }
}

/** One thing wrong with an answer, short enough to show a model and a caller (never the answer itself). */
export interface SchemaProblem {
  path: string;
  message: string;
}

/**
 * Every error of a check of a model's answer (at most 20), in Ajv's own words with the offending
 * name or the allowed values: what a repair turn shows the model and `schema_mismatch` the caller.
 */
export function schemaProblems(errors: readonly ErrorObject[] | null | undefined): SchemaProblem[] {
  return (errors ?? []).slice(0, 20).map((e) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty).slice(0, 60)})`
        : e.keyword === 'enum'
          ? ` (${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues).slice(0, 120)})`
          : '';
    return { path: e.instancePath || '/', message: `${e.message ?? 'is invalid'}${extra}` };
  });
}
