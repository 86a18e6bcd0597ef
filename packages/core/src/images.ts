import { open } from 'node:fs/promises';
import path from 'node:path';
import { InvalidRequestError } from './errors.js';
import { LIMITS } from './limits.js';
import { quoted } from './text.js';
import type { ImageMediaType, ImagePart, ToolImage } from './types.js';

/** The media type the bytes say they are (magic numbers), or undefined for anything else. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | undefined {
  const b = bytes;
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b[4] === 0x0d && b[5] === 0x0a)
    return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (
    b.length >= 6 &&
    b[0] === 0x47 &&
    b[1] === 0x49 &&
    b[2] === 0x46 &&
    b[3] === 0x38 &&
    (b[4] === 0x37 || b[4] === 0x39) &&
    b[5] === 0x61
  )
    return 'image/gif';
  if (
    b.length >= 12 &&
    b[0] === 0x52 &&
    b[1] === 0x49 &&
    b[2] === 0x46 &&
    b[3] === 0x46 &&
    b[8] === 0x57 &&
    b[9] === 0x45 &&
    b[10] === 0x42 &&
    b[11] === 0x50
  ) {
    return 'image/webp';
  }
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`;

/**
 * Check one image part and return it decoded: base64 `data` with a `mediaType` its bytes agree
 * with, or (library only) a local `path`. Remote URLs are refused, never fetched.
 */
export async function loadImage(part: ImagePart, where: string, origin: 'library' | 'http'): Promise<ToolImage> {
  if (part.url !== undefined) {
    throw new InvalidRequestError(
      `${where}: remote image URLs are not fetched (got ${quoted(part.url, 60)}); send the image bytes as base64 "data" with its "mediaType"`,
    );
  }
  if ((part.data === undefined) === (part.path === undefined)) {
    throw new InvalidRequestError(`${where}: an image needs exactly one of "data" (base64, with "mediaType") or "path"`);
  }
  let bytes: Buffer;
  if (part.path !== undefined) {
    if (origin === 'http')
      throw new InvalidRequestError(`${where}: "path" images are for the library only; send the bytes as base64 "data"`);
    bytes = await readImageFile(part.path, where);
  } else {
    const data = part.data!.replace(/\s+/g, '');
    if (!BASE64.test(data) || data.length % 4 === 1) throw new InvalidRequestError(`${where}.data is not base64`);
    if ((data.length * 3) / 4 > LIMITS.maxImageBytes + 3) {
      throw new InvalidRequestError(`${where} is larger than the ${mb(LIMITS.maxImageBytes)} an image may be`);
    }
    bytes = Buffer.from(data, 'base64');
    if (part.mediaType === undefined)
      throw new InvalidRequestError(`${where} needs a "mediaType" (${['png', 'jpeg', 'gif', 'webp'].map((t) => `image/${t}`).join(', ')})`);
  }
  if (bytes.length > LIMITS.maxImageBytes)
    throw new InvalidRequestError(`${where} is ${mb(bytes.length)}; an image may be at most ${mb(LIMITS.maxImageBytes)}`);
  const actual = sniffImageType(bytes);
  if (!actual) throw new InvalidRequestError(`${where} is not a PNG, JPEG, GIF or WebP image`);
  if (part.mediaType !== undefined && part.mediaType !== actual) {
    throw new InvalidRequestError(`${where} says ${part.mediaType} but its bytes are ${actual}`);
  }
  return { type: 'image', mediaType: actual, data: bytes.toString('base64'), bytes: bytes.length };
}

async function readImageFile(file: string, where: string): Promise<Buffer> {
  const full = path.resolve(file);
  let handle;
  try {
    handle = await open(full, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InvalidRequestError(
      `${where}: cannot read image file ${quoted(full)} (${code === 'ENOENT' ? 'no such file' : (code ?? 'error')})`,
    );
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new InvalidRequestError(`${where}: ${quoted(full)} is not a file`);
    if (stat.size > LIMITS.maxImageBytes)
      throw new InvalidRequestError(`${where}: ${quoted(full)} is ${mb(stat.size)}; an image may be at most ${mb(LIMITS.maxImageBytes)}`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The file extension a CLI expects for a media type. */
export function imageExtension(mediaType: ImageMediaType): string {
  return mediaType === 'image/jpeg' ? 'jpg' : mediaType.slice('image/'.length);
}
