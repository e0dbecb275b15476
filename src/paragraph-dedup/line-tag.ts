import { TAG } from "../corpus/vertical.js";

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

const GT = 0x3e;
const SLASH = 0x2f;

const NAME_FIRST = new Uint8Array(128);
const NAME_REST = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  NAME_FIRST[c] = /[A-Za-z_]/.test(ch) ? 1 : 0;
  NAME_REST[c] = /[\w.:-]/.test(ch) ? 1 : 0;
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

/**
 * The TAG regex's verdict on the line bytes [pos, end) (which start with `<`), read from the
 * bytes: names are ASCII there, and only a non-ASCII byte right after the name (a Unicode
 * `\s` may start the attributes) needs the regex on the decoded line.
 */
export function tagRole(bytes: Buffer, pos: number, end: number, names: TagNames): TagRole {
  let i = pos + 1;
  const closing = bytes[i] === SLASH;
  if (closing) i++;
  const nameStart = i;
  if (i >= end || bytes[i] >= 128 || NAME_FIRST[bytes[i]] === 0) return TagRole.NotTag;
  i++;
  while (i < end && bytes[i] < 128 && NAME_REST[bytes[i]] === 1) i++;
  if (i < end && bytes[i] >= 128) {
    const m = TAG.exec(bytes.toString("utf8", pos, end));
    if (m === null) return TagRole.NotTag;
    return role(m[1] === "/", m[3] === "/", m[2] === names.docTagText, m[2] === names.structureText);
  }
  if (bytes[end - 1] !== GT) return TagRole.NotTag;
  let selfClosing: boolean;
  const c = bytes[i];
  if (i === end - 1) selfClosing = false;
  else if (c === SLASH && i === end - 2) selfClosing = true;
  else if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) selfClosing = end - 2 > i && bytes[end - 2] === SLASH;
  else return TagRole.NotTag;
  return role(closing, selfClosing, nameIs(bytes, nameStart, i, names.docTag), nameIs(bytes, nameStart, i, names.structure));
}
