/** Images attached to a prompt: checked against the bridge's limits before anything is sent (pure; no DOM). */

import { formatBytes } from './format.js';
import type { ImageMediaType, ImagePart } from '@toolbridge/core/wire';

/**
 * The bridge's bounds (core's LIMITS.maxImageBytes and maxImages; images.test.ts proves they
 * match). The page checks first so a too-large file gets a clear message before its upload.
 */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_IMAGES = 8;
export const IMAGE_MEDIA_TYPES: readonly ImageMediaType[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** A media type the bridge takes as an image. */
export const isImageMediaType = (type: string): type is ImageMediaType => (IMAGE_MEDIA_TYPES as readonly string[]).includes(type);

export interface ImageFile {
  name: string;
  type: string;
  size: number;
}

/** Why these files cannot be attached (type, size, count), or undefined when they can. */
export function imageProblem(files: readonly ImageFile[], alreadyAttached = 0): string | undefined {
  if (files.length + alreadyAttached > MAX_IMAGES) return `At most ${MAX_IMAGES} images per message (the bridge's limit).`;
  for (const f of files) {
    if (!isImageMediaType(f.type)) return `${f.name} is not a PNG, JPEG, GIF or WebP image (it is ${f.type || 'of unknown type'}).`;
    if (f.size > MAX_IMAGE_BYTES)
      return `${f.name} is ${formatBytes(f.size)}; the bridge takes images up to ${formatBytes(MAX_IMAGE_BYTES)}.`;
    if (f.size === 0) return `${f.name} is empty.`;
  }
  return undefined;
}

/** Base64 of bytes, in chunks (spreading a whole 10 MB array into one call overflows the stack). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** The wire part for an image's bytes. */
export function imagePart(type: ImageMediaType, bytes: Uint8Array): ImagePart {
  return { type: 'image', data: toBase64(bytes), mediaType: type };
}
