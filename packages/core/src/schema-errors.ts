import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { quoted } from './text.js';

/**
 * One ajv setup for every wire schema (discriminated unions, `["string","array"]` types), so
 * validators are built alike everywhere. Compile once, at load.
 */
export function createWireAjv(options: Options = {}): Ajv {
  return new Ajv({ allErrors: false, strict: true, allowUnionTypes: true, discriminator: true, ...options });
}

/** Turn the first ajv error into a message a caller can act on. */
export function describeSchemaError(validate: ValidateFunction, subject = 'request'): string {
  const err = validate.errors?.[0];
  if (!err) return `invalid ${subject}`;
  const where = err.instancePath ? err.instancePath.slice(1).replace(/\//g, '.') : subject;
  switch (err.keyword) {
    case 'required':
      return `${subject} is missing required field "${(err.params as { missingProperty: string }).missingProperty}"${err.instancePath ? ` in ${where}` : ''}`;
    case 'additionalProperties':
      return `${where === subject ? subject : where} has unknown field ${quoted((err.params as { additionalProperty: string }).additionalProperty)}`;
    case 'enum':
      return `${where} must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${where} must be ${JSON.stringify((err.params as { allowedValue: unknown }).allowedValue)}`;
    case 'type': {
      const type = (err.params as { type: string | string[] }).type;
      const types = Array.isArray(type) ? type : String(type).split(',');
      if (types.length === 2 && types.includes('string') && types.includes('array'))
        return `${where} must be a string or an array of parts`;
      return `${where} must be ${types[0] === 'array' ? 'an array' : `of type ${types.join(' or ')}`}`;
    }
    case 'minItems': {
      const n = (err.params as { limit: number }).limit;
      return `${where} must contain at least ${n} item${n === 1 ? '' : 's'}`;
    }
    case 'maxItems': {
      const n = (err.params as { limit: number }).limit;
      return `${where} must contain at most ${n} item${n === 1 ? '' : 's'}`;
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
