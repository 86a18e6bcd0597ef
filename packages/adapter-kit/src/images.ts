import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ToolImage, type ToolMessage } from '@toolbridge/core';
import { imageExtension } from '@toolbridge/core/runtime';
import { renderConversation } from './text.js';

/**
 * Write a conversation's images (in `imagesOf()` order) into a private directory, for CLIs that
 * take images as file paths: `image-1.png`, `image-2.jpg`, ..., each readable by the user only.
 * Returns the paths in the same order, so `[image N: …]` placeholders map to the N-th path.
 */
export async function writeImageFiles(images: readonly ToolImage[], dir: string): Promise<string[]> {
  return Promise.all(
    images.map(async (image, i) => {
      const file = path.join(dir, `image-${i + 1}.${imageExtension(image.mediaType)}`);
      // `wx`: a call's scratch directory is fresh; an existing file would mean two writers.
      await writeFile(file, Buffer.from(image.data, 'base64'), { mode: 0o600, flag: 'wx' });
      return file;
    }),
  );
}

/**
 * The conversation, then each image file as an `@path` reference the CLI inlines itself (spaces
 * escaped, as it wants them): how Gemini CLI and Qwen Code (its fork) take images in a headless run.
 */
export function promptWithImagePaths(messages: readonly ToolMessage[], imageFiles: readonly string[]): string {
  const text = renderConversation(messages);
  if (imageFiles.length === 0) return text;
  const refs = imageFiles.map((f, i) => `[image ${i + 1}]: @${f.replace(/(\s)/g, '\\$1')}`);
  return `${text}\n\n${refs.join('\n')}`;
}
