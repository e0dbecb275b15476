/**
 * What may differ between two runs of the same build, masked before two files that are not
 * byte-identical are compared again. Every rule below was seen to vary between two runs of one
 * build (the baseline against itself); everything else must be byte-identical. A masked value
 * is replaced by `<masked>`, its key and place are kept, so a field that comes or goes is still
 * a difference. Each rule applies to the files its pattern names only.
 */

/** JSON keys whose values (a number or a string) are masked wherever they occur in the file. */
const JSON_KEYS: [RegExp, string[]][] = [
  // run, pleb, calibrate: the build's version, when the run started, and each phase's
  // seconds, peak RSS and CPU time (the phases themselves are compared).
  [/(^|\/)manifest\.json$/, ["version", "created", "seconds", "peakRssMiB", "cpuSeconds"]],
  // paragraphs' report: the version and each phase's seconds, peak RSS and CPU time.
  [/\.report\.json$/, ["version", "seconds", "peakRssMiB", "cpuSeconds"]],
  // An index's batches record the version that added them (their dates are fixed by
  // SOURCE_DATE_EPOCH, which the runs are given).
  [/(^|\/)index\.json$/, ["version"]],
];

/** Tab-separated files' columns, by header name, whose values are masked. */
const TSV_COLUMNS: [RegExp, string[]][] = [
  // PLEB's log: wall seconds of each iteration.
  [/(^|\/)pleb-log\.tsv$/, ["seconds"]],
];

const MASK = "<masked>";

/** The file's text with what may vary masked, or null when no rule applies to it. */
export function normalized(path: string, bytes: Buffer): string | null {
  const json = JSON_KEYS.find(([file]) => file.test(path));
  if (json) return maskJsonKeys(bytes.toString("utf8"), json[1]);
  const tsv = TSV_COLUMNS.find(([file]) => file.test(path));
  if (tsv) return maskTsvColumns(bytes.toString("utf8"), tsv[1]);
  if (/(^|\/)report\.html$/.test(path)) return maskReport(bytes.toString("utf8"));
  return null;
}

function maskJsonKeys(text: string, keys: string[]): string {
  const value = String.raw`"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*`;
  return text.replace(new RegExp(String.raw`("(?:${keys.join("|")})":\s*)(?:${value})`, "g"), `$1"${MASK}"`);
}

function maskTsvColumns(text: string, columns: string[]): string {
  const lines = text.split("\n");
  const masked = lines[0].split("\t").flatMap((name, k) => (columns.includes(name) ? [k] : []));
  return lines.map((line, n) => (n === 0 || line === "" ? line : line.split("\t").map((v, k) => (masked.includes(k) ? MASK : v)).join("\t"))).join("\n");
}

/**
 * report.html: the version row of "Parameters and counts", and in the "Timings" section (which
 * says itself that it varies from run to run) the creation time and the numbers of its table;
 * its text and the phases it lists are compared.
 */
function maskReport(html: string): string {
  const version = html.replace(/(<tr><th>version<\/th><td>)[^<]*(<\/td><\/tr>)/, `$1${MASK}$2`);
  return version.replace(/<section id="timings">[\s\S]*?<\/section>/, (timings) =>
    timings.replace(/Created [^;<]*/, `Created ${MASK}`).replace(/(<td class="n">)[^<]*(<\/td>)/g, `$1${MASK}$2`),
  );
}
