import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ToolImage } from '@toolbridge/core';
import { imageExtension } from '@toolbridge/core/runtime';

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
