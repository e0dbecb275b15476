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
}

/** The tag names the pass looks for, as bytes, so that no line is decoded to compare them. */
export interface TagNames {
  structure: Uint8Array;
  docTag: Uint8Array;
  structureText: string;
  docTagText: string;
}

export function tagNames(structure: string, docTag: string): TagNames {
  return { structure: Buffer.from(structure, "latin1"), docTag: Buffer.from(docTag, "latin1"), structureText: structure, docTagText: docTag };
}

function nameIs(bytes: Uint8Array, start: number, end: number, name: Uint8Array): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (bytes[start + i] !== name[i]) return false;
  return true;
}

function role(closing: boolean, selfClosing: boolean, isDoc: boolean, isStructure: boolean): TagRole {
  if (isDoc) return selfClosing ? TagRole.DocEmpty : closing ? TagRole.DocClose : TagRole.DocOpen;
  if (isStructure && !selfClosing) return closing ? TagRole.UnitClose : TagRole.UnitOpen;
  return TagRole.Other;
}

const shape = emptyTagShape();

/** The TAG regex's verdict on the line bytes [pos, end) (which start with `<`), as a role. */
export function tagRole(bytes: Buffer, pos: number, end: number, names: TagNames): TagRole {
  if (!readTag(bytes, pos, end, shape)) return TagRole.NotTag;
  const is = (name: Uint8Array, text: string) => (shape.name === null ? nameIs(bytes, shape.nameStart, shape.nameEnd, name) : shape.name === text);
  return role(shape.closing, shape.selfClosing, is(names.docTag, names.docTagText), is(names.structure, names.structureText));
}
