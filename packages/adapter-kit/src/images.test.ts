import { describe, expect, it } from '@jest/globals';
import { readFile, stat } from 'node:fs/promises';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { writeImageFiles } from './images.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('writeImageFiles', () => {
  it('writes each image as a user-only file named by its position and type', async () => {
    const tmp = await makeTempDir();
    try {
      const files = await writeImageFiles(
        [
          { type: 'image', mediaType: 'image/png', data: PNG, bytes: 70 },
          { type: 'image', mediaType: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff, 0x00]).toString('base64'), bytes: 4 },
        ],
        tmp.dir,
      );
      expect(files.map((f) => f.slice(tmp.dir.length + 1))).toEqual(['image-1.png', 'image-2.jpg']);
      expect((await readFile(files[0]!)).toString('base64')).toBe(PNG);
      expect((await stat(files[1]!)).mode & 0o777).toBe(0o600);
      // A second writer into the same directory is refused rather than overwriting.
      await expect(writeImageFiles([{ type: 'image', mediaType: 'image/png', data: PNG, bytes: 70 }], tmp.dir)).rejects.toThrow(/EEXIST/);
    } finally {
      await tmp.cleanup();
    }
  });
});
