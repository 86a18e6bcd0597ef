import { describe, expect, it } from '@jest/globals';
import { IMAGE_MEDIA_TYPES as WIRE_TYPES, LIMITS } from '@toolbridge/core';
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, MAX_IMAGES, imagePart, imageProblem, toBase64 } from './images.js';

describe('images', () => {
  it('checks against the same limits the bridge enforces', () => {
    expect(MAX_IMAGE_BYTES).toBe(LIMITS.maxImageBytes);
    expect(MAX_IMAGES).toBe(LIMITS.maxImages);
    expect([...IMAGE_MEDIA_TYPES]).toEqual([...WIRE_TYPES]);
  });

  it('says clearly why a file cannot be attached', () => {
    expect(imageProblem([{ name: 'a.png', type: 'image/png', size: 10 }])).toBeUndefined();
    expect(imageProblem([{ name: 'big.png', type: 'image/png', size: MAX_IMAGE_BYTES + 1 }])).toBe(
      'big.png is 10 MB; the bridge takes images up to 10 MB.',
    );
    expect(imageProblem([{ name: 'huge.jpg', type: 'image/jpeg', size: 25 * 1024 * 1024 }])).toBe(
      'huge.jpg is 25 MB; the bridge takes images up to 10 MB.',
    );
    expect(imageProblem([{ name: 'doc.pdf', type: 'application/pdf', size: 10 }])).toMatch(
      /^doc\.pdf is not a PNG, JPEG, GIF or WebP image/,
    );
    expect(imageProblem([{ name: 'a.png', type: 'image/png', size: 10 }], MAX_IMAGES)).toBe(
      "At most 8 images per message (the bridge's limit).",
    );
  });

  it('encodes bytes as base64, large arrays too', () => {
    expect(toBase64(new Uint8Array([137, 80, 78, 71]))).toBe(Buffer.from([137, 80, 78, 71]).toString('base64'));
    const big = new Uint8Array(200_000).map((_, i) => i % 251);
    expect(toBase64(big)).toBe(Buffer.from(big).toString('base64'));
    expect(imagePart('image/png', new Uint8Array([1]))).toEqual({ type: 'image', data: 'AQ==', mediaType: 'image/png' });
  });
});
