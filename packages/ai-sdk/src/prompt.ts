import { fileURLToPath } from 'node:url';
import {
  InvalidPromptError,
  UnsupportedFunctionalityError,
  type LanguageModelV4FilePart,
  type LanguageModelV4Prompt,
  type SharedV4Warning,
} from '@ai-sdk/provider';
import { IMAGE_MEDIA_TYPES, type ImageMediaType } from '@toolbridge/core';
import { sniffImageType } from '@toolbridge/core/runtime';
import type { ChatMessage, ContentPart } from 'toolbridge';

/**
 * AI SDK prompt → Toolbridge messages. System, user and assistant text pass through; image file
 * parts become Toolbridge image parts (bytes as base64, a `file:` URL as a local path, which the
 * library reads). What the agents' own activity left in the history (provider-executed tool calls
 * and results, reasoning) is the agent's record of what it did, not conversation, and is left
 * out; anything else that cannot be sent becomes a warning or an error, never a silent drop.
 */
export function toChatMessages(prompt: LanguageModelV4Prompt, warnings: SharedV4Warning[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const dropped = new Set<string>();
  for (const [index, message] of prompt.entries()) {
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', content: message.content });
        break;
      case 'user': {
        const parts: ContentPart[] = message.content.map((part, p) =>
          part.type === 'text' ? { type: 'text', text: part.text } : imagePart(part, `prompt[${index}].content[${p}]`),
        );
        messages.push({ role: 'user', content: simplify(parts) });
        break;
      }
      case 'assistant': {
        const texts: string[] = [];
        for (const part of message.content) {
          if (part.type === 'text') texts.push(part.text);
          else if (part.type === 'reasoning' || part.type === 'reasoning-file') continue;
          else if ((part.type === 'tool-call' || part.type === 'tool-result') && isProviderExecuted(part)) continue;
          else dropped.add(`assistant ${part.type} parts`);
        }
        const text = texts.join('');
        if (text) messages.push({ role: 'assistant', content: text });
        break;
      }
      case 'tool':
        dropped.add('tool messages (results of caller-defined tools)');
        break;
    }
  }
  for (const what of dropped) {
    warnings.push({ type: 'other', message: `Toolbridge sends text and images only: ${what} in the prompt were left out` });
  }
  return messages;
}

function isProviderExecuted(part: { type: string; providerExecuted?: boolean; providerOptions?: unknown }): boolean {
  // A tool-call carries `providerExecuted`; a result of one carries our own metadata back as providerOptions.
  return part.providerExecuted === true || (part.type === 'tool-result' && hasToolbridgeKey(part.providerOptions));
}

function hasToolbridgeKey(options: unknown): boolean {
  return typeof options === 'object' && options !== null && 'toolbridge' in options;
}

function simplify(parts: ContentPart[]): string | ContentPart[] {
  return parts.length === 1 && parts[0]!.type === 'text' ? parts[0]!.text : parts;
}

const isImageType = (t: string): t is ImageMediaType => (IMAGE_MEDIA_TYPES as readonly string[]).includes(t);

/** One AI SDK file part as a Toolbridge image part; other files cannot be sent. */
export function imagePart(part: LanguageModelV4FilePart, where: string): ContentPart {
  const mediaType = part.mediaType.toLowerCase();
  if (!(mediaType === 'image' || mediaType.startsWith('image/'))) {
    throw new UnsupportedFunctionalityError({
      functionality: `file parts of type ${part.mediaType}`,
      message: `${where}: Toolbridge sends images (PNG, JPEG, GIF, WebP) only, not ${part.mediaType} files`,
    });
  }
  if (mediaType.includes('/') && mediaType !== 'image/*' && !isImageType(mediaType)) {
    throw new UnsupportedFunctionalityError({
      functionality: `images of type ${part.mediaType}`,
      message: `${where}: Toolbridge takes PNG, JPEG, GIF and WebP images, not ${part.mediaType}`,
    });
  }
  const data = part.data;
  switch (data.type) {
    case 'data': {
      const base64 = typeof data.data === 'string' ? data.data : Buffer.from(data.data).toString('base64');
      return { type: 'image', data: base64, mediaType: imageType(mediaType, base64) };
    }
    case 'url': {
      const url = data.url;
      if (url.protocol === 'file:') return { type: 'image', path: fileURLToPath(url) };
      if (url.protocol === 'data:') {
        const match = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url.href);
        if (!match?.[2]) throw new InvalidPromptError({ prompt: undefined, message: `${where}: only base64 data URLs are supported` });
        return { type: 'image', data: match[3]!, mediaType: imageType(match[1] || mediaType, match[3]!) };
      }
      // The AI SDK downloads URLs a model does not declare in `supportedUrls`; a remote URL left here
      // is refused by the library with a clear message (remote images are never fetched by tools).
      return { type: 'image', url: url.href };
    }
    case 'reference':
      throw new UnsupportedFunctionalityError({
        functionality: 'provider file references',
        message: `${where}: Toolbridge cannot use files uploaded to a provider; send the image bytes`,
      });
    case 'text':
      throw new InvalidPromptError({ prompt: undefined, message: `${where}: an image file part cannot hold inline text` });
  }
}

/** The part's media type when it is a full image type; otherwise what the bytes say they are. */
function imageType(mediaType: string, base64: string): ImageMediaType | undefined {
  if (isImageType(mediaType)) return mediaType;
  return sniffImageType(Buffer.from(base64.slice(0, 24), 'base64'));
}
