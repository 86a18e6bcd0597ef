import type { NativeSchema } from '@toolbridge/adapter-kit';

/** The answer's JSON text (unwrapped when the schema was wrapped). */
export function unwrapAnswer(text: string, wrapped: NativeSchema['wrapped']): string {
  if (!wrapped) return text;
  try {
    const v = JSON.parse(text) as { value?: unknown };
    return typeof v === 'object' && v !== null && v.value !== undefined ? JSON.stringify(v.value) : text;
  } catch {
    return text;
  }
}
