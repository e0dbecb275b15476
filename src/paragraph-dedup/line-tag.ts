import { emptyTagShape, readTag } from "../corpus/vertical.js";

/** What a line starting with `<` is to the paragraph pass (see `tagRole`). */
export const enum TagRole {
  /** Not a tag by the core TAG regex: a token such as `<` or `<3`. */
  NotTag = 0,
  /** Any other tag: structure inside a document, kept as it is outside one. */
  Other = 1,
  /** `<structure …>`: starts a unit. */
  UnitOpen = 2,
  /** `</structure>`: the next line starts a unit. */
  UnitClose = 3,
  DocOpen = 4,
  DocClose = 5,
  /** `<doc …/>`: an error. */
  DocEmpty = 6,
  /** Any other form of the `--boundary` tag (`<s …>`, `</s>`, `<s/>`): the n-gram window restarts. */
  Boundary = 7,
}

/** The tag names the pass looks for, as bytes, so that no line is decoded to compare them. */
export interface TagNames {
  structure: Uint8Array;
  docTag: Uint8Array;
  /** The tag at which n-gram windows restart besides documents; null when none. */
  boundary: Uint8Array | null;
  structureText: string;
  docTagText: string;
  boundaryText: string | null;
}

export function tagNames(structure: string, docTag: string, boundary: string | null = null): TagNames {
  const bytes = (name: string) => Buffer.from(name, "latin1");
  return { structure: bytes(structure), docTag: bytes(docTag), boundary: boundary === null ? null : bytes(boundary), structureText: structure, docTagText: docTag, boundaryText: boundary };
}

function nameIs(bytes: Uint8Array, start: number, end: number, name: Uint8Array): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (bytes[start + i] !== name[i]) return false;
  return true;
}

function role(closing: boolean, selfClosing: boolean, isDoc: boolean, isStructure: boolean, isBoundary: boolean): TagRole {
  if (isDoc) return selfClosing ? TagRole.DocEmpty : closing ? TagRole.DocClose : TagRole.DocOpen;
  if (isStructure && !selfClosing) return closing ? TagRole.UnitClose : TagRole.UnitOpen;
  return isBoundary ? TagRole.Boundary : TagRole.Other;
}

const shape = emptyTagShape();

/**
 * The TAG regex's verdict on the line bytes [pos, end) (which start with `<`), as a role. A
 * boundary tag that is also the structure tag comes back as UnitOpen/UnitClose (see
 * `restartsWindow`).
 */
export function tagRole(bytes: Buffer, pos: number, end: number, names: TagNames): TagRole {
  if (!readTag(bytes, pos, end, shape)) return TagRole.NotTag;
  const is = (name: Uint8Array, text: string) => (shape.name === null ? nameIs(bytes, shape.nameStart, shape.nameEnd, name) : shape.name === text);
  const boundary = names.boundary !== null && is(names.boundary, names.boundaryText!);
  return role(shape.closing, shape.selfClosing, is(names.docTag, names.docTagText), is(names.structure, names.structureText), boundary);
}

/** Whether a tag line of this role restarts the n-gram window inside a document. */
export function restartsWindow(role: TagRole, names: TagNames): boolean {
  return role === TagRole.Boundary || ((role === TagRole.UnitOpen || role === TagRole.UnitClose) && names.boundaryText === names.structureText);
}
