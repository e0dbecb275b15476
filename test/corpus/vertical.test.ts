import fc from "fast-check";
import { type Chunk, addWarnings, attributeValue, emptyWarnings, parseChunk, parseTag, TAG, type VerticalDoc } from "../../src/corpus/vertical.js";
import { afterAll, describe, expect, it } from "vitest";

import { InputError, VertdupError } from "../../src/core/errors.js";
import { cleanupVerts, makeCorpus, readCorpus, writeVert, type VertKind } from "../helpers/vert.js";

afterAll(cleanupVerts);

function chunkOf(text: string | Buffer, file = "mem.vert", firstLine = 1, firstDoc = 0): Chunk {
  const bytes = typeof text === "string" ? Buffer.from(text) : text;
  return { index: 0, file, firstLine, firstDoc, docCount: 0, bytes };
}

function parse(text: string | Buffer, column = 0, idAttr = "id") {
  const docs: VerticalDoc[] = [];
  const warnings = emptyWarnings();
  parseChunk(chunkOf(text), { column, idAttr }, warnings, (d) => docs.push(d));
  return { docs, warnings };
}

/** The error a whole-corpus read fails with (any chunk size). */
async function readError(paths: string[], target = 1 << 20, column = 0): Promise<Error> {
  try {
    await readCorpus(paths, target, { column });
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the read to fail");
}

const TARGETS = [1, 40, 1 << 20];

describe("documents, ids and ordinals", () => {
  it("reads ids, ordinals, lines and tokens across several chunks and files", async () => {
    const a = '<doc id="a1">\nx\n</doc>\n<doc id="a2">\ny\nz\n</doc>\n';
    const b = '<doc>\nq\n</doc>\n<doc id="b2" lang="cs">\nr\n</doc>\n';
    const c = '<doc title="no id here">\ns\n</doc>\n';
    for (const target of TARGETS) {
      const paths = [writeVert(a, "plain"), writeVert(b, "gz"), writeVert(c, "zst")];
      const { docs, chunks } = await readCorpus(paths, target);
      if (target === 1) expect(chunks.length).toBe(5);
      expect(docs).toEqual([
        { ordinal: 0, id: "a1", line: 1, tokens: ["x"] },
        { ordinal: 1, id: "a2", line: 4, tokens: ["y", "z"] },
        // No id attribute: the 1-based ordinal in the whole corpus.
        { ordinal: 2, id: "3", line: 1, tokens: ["q"] },
        { ordinal: 3, id: "b2", line: 4, tokens: ["r"] },
        { ordinal: 4, id: "5", line: 1, tokens: ["s"] },
      ]);
    }
  });

  it("takes the id from another attribute with idAttr", async () => {
    const text = '<doc id="x" url="http://a/1">\nt\n</doc>\n<doc url=\'http://a/2\'>\nu\n</doc>\n<doc id="z">\nv\n</doc>\n';
    const { docs } = await readCorpus([writeVert(text)], 1, { idAttr: "url" });
    expect(docs.map((d) => d.id)).toEqual(["http://a/1", "http://a/2", "3"]);
  });

  it("does not take the id from an attribute whose name merely ends in the id name", () => {
    const { docs } = parse('<doc docid="no" id="yes">\nt\n</doc>\n<doc docid="no">\nu\n</doc>\n');
    expect(docs.map((d) => d.id)).toEqual(["yes", "2"]);
  });

  it("reads a document whose <doc> attributes contain `>`", () => {
    const { docs, warnings } = parse(
      '<doc id="a" title="x > y">\nt\n</doc>\n<doc id="b" title=\'<b>\'>\n<s note="a>b">\nu\n</s>\n</doc>\n' +
        '<doc id="c" title="line\u2028sep">\nv\n</doc>\n',
    );
    expect(docs.map((d) => [d.id, d.tokens])).toEqual([
      ["a", ["t"]],
      ["b", ["u"]],
      ["c", ["v"]],
    ]);
    expect(warnings).toEqual(emptyWarnings());
  });

  it("reads a file that starts with a UTF-8 byte-order mark, with correct ordinals", async () => {
    const text = '\ufeff<doc id="a">\nx\n</doc>\n<doc>\ny\n</doc>\n<doc>\nz\n</doc>\n';
    for (const target of TARGETS) {
      const { docs } = await readCorpus([writeVert(text)], target);
      expect(docs.map((d) => [d.ordinal, d.id, d.line])).toEqual([
        [0, "a", 1],
        [1, "2", 4],
        [2, "3", 7],
      ]);
    }
  });

  it("yields the same documents and warnings whatever the chunk size", async () => {
    const text = makeCorpus(120, 5) + "<p>\n\n"; // with some lenient irregularities
    for (const kind of ["plain", "gz", "zst"] as VertKind[]) {
      const path = writeVert(text, kind);
      const huge = await readCorpus([path], 1 << 30, { column: 2 });
      expect(huge.chunks.length).toBe(1);
      expect(huge.docs.length).toBe(120);
      for (const target of [1, 10, 100, 1000, 10_000]) {
        const small = await readCorpus([path], target, { column: 2 });
        expect(small.docs).toEqual(huge.docs);
        expect(small.warnings).toEqual(huge.warnings);
      }
    }
  });

  it("gives ordinals 0..n-1 and line numbers that point at the <doc> lines", async () => {
    const text = makeCorpus(50, 8);
    const lines = text.split("\n");
    const { docs } = await readCorpus([writeVert(text)], 64);
    expect(docs.map((d) => d.ordinal)).toEqual(docs.map((_, i) => i));
    for (const d of docs) expect(lines[d.line - 1]).toBe(`<doc id="d${d.ordinal}" title="t ${d.ordinal}">`);
  });
});

describe("tokens and columns", () => {
  const text = [
    '<doc id="a">',
    "<p>",
    "<s>",
    "Psi\tNNMP1\tpes",
    "<g/>",
    "štěkají\tVB\tštěkat",
    "</s>",
    "<head>",
    "Nadpis\tNN\tnadpis",
    "</head>",
    "</p>",
    "</doc>",
    "",
  ].join("\n");

  it("uses the word column by default and the lemma with column 2", () => {
    expect(parse(text).docs[0].tokens).toEqual(["Psi", "štěkají", "Nadpis"]);
    expect(parse(text, 1).docs[0].tokens).toEqual(["NNMP1", "VB", "NN"]);
    expect(parse(text, 2).docs[0].tokens).toEqual(["pes", "štěkat", "nadpis"]);
  });

  it("keeps empty column values", () => {
    expect(parse('<doc id="a">\nw\t\tlemma\nv\tT\t\n</doc>\n', 2).docs[0].tokens).toEqual(["lemma", ""]);
  });

  it("rejects a token line with too few columns, naming file and line", async () => {
    const bad = '<doc id="a">\nw\tT\tl\n</doc>\n<doc id="b">\nw\tT\tl\nonly\tT\n</doc>\n';
    const path = writeVert(bad);
    for (const target of TARGETS) {
      const err = await readError([path], target, 2);
      expect(err).toBeInstanceOf(InputError);
      expect(err.message).toBe(`${path}:6: token line has 2 column(s), --column 2 needs 3`);
    }
    const one = await readError([writeVert('<doc id="a">\nword\n</doc>\n', "gz", "one")], 1, 1);
    expect(one.message).toMatch(/one\.vert\.gz:2: token line has 1 column\(s\), --column 1 needs 2$/);
  });

  it("does not treat structure tags as tokens, but does treat `<`, `<3` and similar as tokens", () => {
    const t = [
      '<doc id="a">',
      "<g/>",
      "<",
      "<3",
      "<>",
      "<=",
      "< p>",
      "a<b",
      "<g />",
      '<ref target="x"/>',
      "<p>",
      "</p>",
      "<s id=\"1\">",
      "</s>",
      "</doc>",
      "",
    ].join("\n");
    const { docs, warnings } = parse(t);
    expect(docs[0].tokens).toEqual(["<", "<3", "<>", "<=", "< p>", "a<b"]);
    expect(warnings).toEqual(emptyWarnings());
  });

  it("keeps `<` tokens with tag and lemma columns", () => {
    expect(parse('<doc id="a">\n<\tZ:\t<\n<3\tX\t<3\n</doc>\n', 2).docs[0].tokens).toEqual(["<", "<3"]);
  });
});

describe("bad input is an error naming file and line", () => {
  const cases: [string, string, number, RegExp][] = [
    ["token before the first <doc>", 'x\n<doc id="a">\ny\n</doc>\n', 1, /token outside <doc>/],
    ["token between documents", '<doc id="a">\ny\n</doc>\nstray\n<doc id="b">\nz\n</doc>\n', 4, /token outside <doc>/],
    ["token after the last document", '<doc id="a">\ny\n</doc>\n<p>\nz\n', 5, /token outside <doc>/],
    ["nested <doc>", '<doc id="a">\ny\n<doc id="b">\nz\n</doc>\n</doc>\n', 3, /<doc> inside the <doc> opened at line 1 \(missing <\/doc>\)/],
    ["unclosed <doc> at end of file", '<doc id="a">\ny\n</doc>\n<doc id="b">\nz\n<p>\n', 4, /<doc> is never closed/],
    ["stray </doc>", '<doc id="a">\ny\n</doc>\n</doc>\n', 4, /<\/doc> without an open <doc>/],
    ["CRLF line ends", '<doc id="a">\r\ny\r\n</doc>\r\n', 1, /CRLF/],
    ["a CRLF line in the middle", '<doc id="a">\ny\nz\r\n</doc>\n', 3, /CRLF/],
    ["<doc/>", '<doc id="a">\ny\n</doc>\n<doc id="b"/>\n', 4, /empty <doc\/> element/],
    ["a <doc line without its > inside a document", '<doc id="a">\ny\n<doc id="b"\nz\n</doc>\n', 3, /<doc line without its closing ">"/],
    ["a <doc line without its > between documents", '<doc id="a">\ny\n</doc>\n<doc id="b"\nz\n</doc>\n', 4, /<doc line without its closing ">"/],
  ];
  for (const [what, text, line, problem] of cases) {
    it(what, async () => {
      for (const kind of ["plain", "gz"] as VertKind[]) {
        const path = writeVert(text, kind);
        const err = await readError([path]);
        expect(err).toBeInstanceOf(InputError);
        expect(err).toBeInstanceOf(VertdupError);
        expect((err as InputError).file).toBe(path);
        expect((err as InputError).line).toBe(line);
        expect(err.message.startsWith(`${path}:${line}: `)).toBe(true);
        expect(err.message).toMatch(problem);
      }
    });
  }

  it("reports errors in a later file with that file's own line numbers", async () => {
    const ok = writeVert(makeCorpus(5));
    const bad = writeVert('<doc id="a">\ny\n</doc>\n<doc id="b">\nz\n</doc>\n</doc>\n', "zst");
    for (const target of TARGETS) {
      const err = await readError([ok, bad], target);
      expect(err.message).toBe(`${bad}:7: </doc> without an open <doc>`);
    }
  });

  it("reports an error deep in a many-chunk file at its line in the file", async () => {
    const good = makeCorpus(40, 3);
    const goodLines = good.split("\n").length - 1;
    const path = writeVert(good + '<doc id="x">\nw\n</doc>\noops\n');
    for (const target of [1, 333, 1 << 20]) {
      const err = await readError([path], target);
      expect(err.message).toBe(`${path}:${goodLines + 4}: token outside <doc>`);
    }
  });

  it("reports an unclosed <doc> cut off by the next chunk at the unclosed <doc>'s line", async () => {
    // With small chunks the nested <doc> starts a new chunk; the error still names the file
    // and the line of the <doc> that is never closed.
    const path = writeVert('<doc id="a">\ny\n</doc>\n<doc id="b">\nz\n<doc id="c">\nw\n</doc>\n');
    const err = await readError([path], 1);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toBe(`${path}:4: <doc> is never closed (missing </doc>)`);
    const whole = await readError([path]);
    expect(whole.message).toBe(`${path}:6: <doc> inside the <doc> opened at line 4 (missing </doc>)`);
  });

  describe("invalid UTF-8", () => {
    const before = makeCorpus(30, 4);
    const beforeLines = before.split("\n").length - 1;
    const variants: [string, Buffer][] = [
      ["a lone continuation byte", Buffer.from([0x61, 0x80, 0x62])],
      ["a truncated 2-byte sequence at the end of the line", Buffer.from([0x61, 0xc5])],
      ["an overlong encoding", Buffer.from([0xc0, 0xaf])],
      ["a Latin-2 byte", Buffer.from([0x9e, 0x6c, 0x75, 0xbb])],
      ["a surrogate encoded in UTF-8", Buffer.from([0xed, 0xa0, 0x80])],
    ];
    for (const [what, bad] of variants) {
      it(`${what} in the middle of a file names the line`, async () => {
        const bytes = Buffer.concat([
          Buffer.from(before + '<doc id="x">\nok\n'),
          bad,
          Buffer.from("\nžluťoučký\n</doc>\n" + makeCorpus(10, 9)),
        ]);
        for (const kind of ["plain", "gz", "zst"] as VertKind[]) {
          const path = writeVert(bytes, kind);
          for (const target of [1, 500, 1 << 20]) {
            const err = await readError([path], target);
            expect(err).toBeInstanceOf(InputError);
            expect(err.message).toBe(`${path}:${beforeLines + 3}: invalid UTF-8`);
          }
        }
      });
    }

    it("names the line inside a chunk that does not start at line 1", () => {
      const bytes = Buffer.concat([Buffer.from('<doc id="a">\nx\n'), Buffer.from([0xff]), Buffer.from("\n</doc>\n")]);
      expect(() => parseChunk(chunkOf(bytes, "f.vert", 101, 7), { column: 0, idAttr: "id" }, emptyWarnings(), () => {})).toThrow(
        "f.vert:103: invalid UTF-8",
      );
    });
  });

  it("names standard input <stdin>", () => {
    const c: Chunk = { ...chunkOf("x\n"), file: "-" };
    expect(() => parseChunk(c, { column: 0, idAttr: "id" }, emptyWarnings(), () => {})).toThrow("<stdin>:1: token outside <doc>");
  });
});

describe("lenient irregularities are counted in warnings", () => {
  it("counts a stray closing tag", () => {
    const { docs, warnings } = parse('<doc id="a">\n</p>\nx\n<s>\n</s>\n</s>\n</doc>\n');
    expect(docs[0].tokens).toEqual(["x"]);
    expect(warnings).toEqual({ ...emptyWarnings(), strayClosingTag: 2 });
  });

  it("counts structures still open at </doc>", () => {
    const { docs, warnings } = parse('<doc id="a">\n<p>\n<s>\nx\n</doc>\n<doc id="b">\n<p>\ny\n</doc>\n');
    expect(docs.map((d) => d.tokens)).toEqual([["x"], ["y"]]);
    expect(warnings).toEqual({ ...emptyWarnings(), unclosedStructure: 3 });
  });

  it("counts structures left open inside a closed outer one", () => {
    const { warnings } = parse('<doc id="a">\n<p>\n<s>\n<hi>\nx\n</p>\n</doc>\n');
    expect(warnings).toEqual({ ...emptyWarnings(), unclosedStructure: 2 });
  });

  it("counts empty lines, inside and outside documents", () => {
    const { docs, warnings } = parse('\n<doc id="a">\nx\n\n\ny\n</doc>\n\n');
    expect(docs[0].tokens).toEqual(["x", "y"]);
    expect(warnings).toEqual({ ...emptyWarnings(), emptyLine: 4 });
  });

  it("counts structure tags outside documents", () => {
    const { docs, warnings } = parse('<corpus name="c">\n<p>\n<doc id="a">\nx\n</doc>\n</p>\n<g/>\n</corpus>\n');
    expect(docs.length).toBe(1);
    // <corpus>, <p>, </p> and </corpus>; the empty element <g/> carries nothing and is ignored.
    expect(warnings).toEqual({ ...emptyWarnings(), tagOutsideDoc: 4 });
  });

  it("counts the same warnings across chunks and files as in one piece", async () => {
    const a = '<x>\n<doc id="a">\n<p>\nx\n</doc>\n\n<doc id="b">\n</s>\ny\n</doc>\n';
    const b = '\n<doc id="c">\n<p>\n<s>\nz\n</p>\n</doc>\n</x>\n';
    const paths = [writeVert(a), writeVert(b, "gz")];
    for (const target of TARGETS) {
      const { warnings, docs } = await readCorpus(paths, target);
      expect(docs.map((d) => d.id)).toEqual(["a", "b", "c"]);
      expect(warnings).toEqual({ strayClosingTag: 1, unclosedStructure: 2, emptyLine: 2, tagOutsideDoc: 2 });
    }
  });

  it("addWarnings sums every counter", () => {
    const w = { strayClosingTag: 1, unclosedStructure: 2, emptyLine: 3, tagOutsideDoc: 4 };
    addWarnings(w, { strayClosingTag: 10, unclosedStructure: 20, emptyLine: 30, tagOutsideDoc: 40 });
    expect(w).toEqual({ strayClosingTag: 11, unclosedStructure: 22, emptyLine: 33, tagOutsideDoc: 44 });
  });
});

const AT = { file: "t.vert", line: 7 };

describe("attributeValue", () => {
  it("reads double- and single-quoted values, and undefined when absent", () => {
    expect(attributeValue('<doc id="a b" lang="cs">', "id", AT)).toBe("a b");
    expect(attributeValue("<doc id='x'>", "id", AT)).toBe("x");
    expect(attributeValue('<doc id="">', "id", AT)).toBe("");
    expect(attributeValue('<doc lang="cs">', "id", AT)).toBeUndefined();
    expect(attributeValue('<doc xml:id="q">', "xml:id", AT)).toBe("q");
    expect(attributeValue('<doc a.b="q">', "a.b", AT)).toBe("q");
    expect(attributeValue('<doc axb="no" a.b="q">', "a.b", AT)).toBe("q");
  });

  it("reads the tag's attributes as attributes: never from inside another's value (#31 item 3)", () => {
    expect(attributeValue(`<doc title="see id='fake'" id="real1">`, "id", AT)).toBe("real1");
    expect(attributeValue(`<doc title='a id="fake"'>`, "id", AT)).toBeUndefined();
    expect(attributeValue('<doc note="x id=y" id=z>', "id", AT)).toBe("z");
    expect(attributeValue('<doc id = "x">', "id", AT)).toBe("x");
    expect(attributeValue("<doc id=x>", "id", AT)).toBe("x");
    expect(attributeValue("<doc id=x/>", "id", AT)).toBe("x");
    expect(attributeValue('<doc checked id="x">', "id", AT)).toBe("x");
    expect(attributeValue('<doc xid="no" id="x">', "id", AT)).toBe("x");
    // A value whose quote never closes: bad input at its line, not a document silently named by its ordinal.
    expect(() => attributeValue(`<doc id="x'>`, "id", AT)).toThrow(`t.vert:7: the value of id= opens with " and never closes`);
    expect(() => attributeValue(`<doc title='x id="y">`, "id", AT)).toThrow(`t.vert:7: the value of title= opens with ' and never closes`);
  });

  it("finds every attribute of a generated tag by its name (property)", () => {
    const name = fc.stringMatching(/^[a-z_][a-z0-9_.:-]{0,5}$/);
    const value = fc.string({ maxLength: 8 }).filter((v) => !v.includes('"') && !v.includes("'"));
    const attrs = fc.uniqueArray(fc.tuple(name, value, fc.constantFrom('"', "'"), fc.constantFrom("", " ")), { selector: (a) => a[0], maxLength: 6 });
    fc.assert(
      fc.property(attrs, (list) => {
        const line = `<doc${list.map(([n, v, q, sp]) => ` ${n}${sp}=${sp}${q}${v}${q}`).join("")}>`;
        for (const [n, v] of list) expect(attributeValue(line, n, AT)).toBe(v);
      }),
    );
  });
});

describe("parseTag", () => {
  it("agrees with the TAG regex", () => {
    const lines = ["<p>", "</p>", "<g/>", "<g />", "<p/>", "</a/>", "<a/ >", "<p >", "<p\t/>", "<p\tx/>", "< p>", "<p>x", "<p/>>",
      "<x a='b > c'/>", "<x a=\"1\">", '<doc id="ž">', "<s\u00a0x>", "<p\u2028>", "<doc_meta>", "<q:x-y.z>", "<_a>", "<1a>", "<",
      "<3", "<<", "<a", "<a b", "</>", "<a\u00a0/>", "<ž>", "<p x=\"ž\"/>"];
    for (const line of lines) {
      const bytes = Buffer.from(`${line}\n`);
      const m = TAG.exec(line);
      const expected = m === null ? null : { closing: m[1] === "/", name: m[2], selfClosing: m[3] === "/" };
      expect(parseTag(bytes, 0, bytes.length - 1), line).toEqual(expected);
    }
  });
});
