/** The chat box's options beyond tool and model: permission level, folder, JSON schema, images, MCP servers, the session it continues. */

import { PERMISSION_LEVELS, type PermissionLevel } from './chat.js';
import { byId, el } from './dom.js';
import { formatBytes } from './format.js';
import { imagePart, imageProblem, isImageMediaType } from './images.js';
import type { ImagePart } from '@toolbridge/core/wire';

interface Attached {
  name: string;
  size: number;
  part: ImagePart;
}

export interface SessionChoice {
  id: string;
  title: string;
  toolId: string;
}

export class ChatOptions {
  private images: Attached[] = [];
  private session?: SessionChoice;

  private readonly permissionSelect = byId<HTMLSelectElement>('chat-permissions');
  private readonly cwdInput = byId<HTMLInputElement>('chat-cwd');
  private readonly schemaInput = byId<HTMLTextAreaElement>('chat-schema');
  private readonly fileInput = byId<HTMLInputElement>('chat-images');
  private readonly imageList = byId<HTMLUListElement>('images-list');
  private readonly imageError = byId('images-error');
  private readonly sessionBox = byId('chat-session');
  private readonly sessionText = byId('chat-session-text');
  private readonly forkBox = byId<HTMLInputElement>('chat-fork');
  private readonly approvalsBox = byId<HTMLInputElement>('chat-approvals');
  private readonly mcpInput = byId<HTMLTextAreaElement>('chat-mcp');

  constructor() {
    this.fileInput.addEventListener('change', () => void this.attach());
    byId('chat-session-clear').addEventListener('click', () => this.setSession(undefined));
  }

  get permissions(): PermissionLevel {
    const value = this.permissionSelect.value as PermissionLevel;
    return PERMISSION_LEVELS.includes(value) ? value : 'read-only';
  }

  /** Ask before each action (`approvals: "ask"`). */
  get approvals(): boolean {
    return this.approvalsBox.checked;
  }

  get cwd(): string {
    return this.cwdInput.value;
  }

  get schema(): string {
    return this.schemaInput.value;
  }

  /** MCP servers for the agent, as typed (checked by `chatCall`). */
  get mcpServers(): string {
    return this.mcpInput.value;
  }

  get imageParts(): ImagePart[] {
    return this.images.map((i) => i.part);
  }

  get sessionChoice(): { id: string; fork: boolean } | undefined {
    return this.session ? { id: this.session.id, fork: this.forkBox.checked } : undefined;
  }

  /** Continue (or with `fork`, branch off) this session with the next message; undefined starts a new conversation. */
  setSession(session: SessionChoice | undefined, fork = false): void {
    this.session = session;
    this.sessionBox.hidden = !session;
    this.forkBox.checked = fork;
    this.sessionText.replaceChildren(
      ...(session ? ['Continues ', el('strong', {}, session.title), ' (', el('code', {}, session.id), `, ${session.toolId})`] : []),
    );
  }

  get sessionTitle(): string | undefined {
    return this.session?.title;
  }

  /** After an answer: a continued session goes on under the id the answer names (a fork's new id), no longer forking. */
  advanceSession(id: string, toolId: string): void {
    if (this.session) this.setSession({ ...this.session, id, toolId });
  }

  /** Forget the session if it is this one (it was deleted). */
  forgetSession(id: string): void {
    if (this.session?.id === id) this.setSession(undefined);
  }

  /** Images are sent with one message only. */
  clearImages(): void {
    this.images = [];
    this.renderImages();
  }

  private async attach(): Promise<void> {
    const files = [...(this.fileInput.files ?? [])];
    this.fileInput.value = '';
    this.imageError.replaceChildren();
    const problem = imageProblem(files, this.images.length);
    if (problem) {
      this.imageError.append(el('p', {}, problem));
      return;
    }
    for (const file of files) {
      if (!isImageMediaType(file.type)) continue; // imageProblem has refused it already
      const bytes = new Uint8Array(await file.arrayBuffer());
      this.images.push({ name: file.name, size: file.size, part: imagePart(file.type, bytes) });
    }
    this.renderImages();
  }

  private renderImages(): void {
    this.imageList.replaceChildren(
      ...this.images.map((image, index) => {
        const remove = el('button', { type: 'button', class: 'small', 'aria-label': `Remove ${image.name}` }, 'Remove');
        remove.addEventListener('click', () => {
          this.images.splice(index, 1);
          this.renderImages();
        });
        return el('li', {}, el('span', {}, image.name), el('span', { class: 'muted' }, ` ${formatBytes(image.size)} `), remove);
      }),
    );
  }
}
