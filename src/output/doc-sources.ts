/**
 * Where each document of a run with `--against` comes from. The run's documents are the
 * indices' documents, index after index in `--against` order, each in its own ordinal order,
 * followed by the new inputs' documents: the order of one run over the concatenation, so
 * that every method's result is that run's, and `--keep older` is `first` over it.
 */
export class DocSources {
  /** Combined ordinal of each index's first document, then of the first new document. */
  private readonly starts: Float64Array;

  /** `indices`: each index as given on the command line, with its document count. */
  constructor(
    readonly indices: readonly { dir: string; documents: number }[],
    readonly newDocuments: number,
  ) {
    this.starts = new Float64Array(indices.length + 1);
    for (let k = 0; k < indices.length; k++) this.starts[k + 1] = this.starts[k] + indices[k].documents;
  }

  /** Combined ordinal of the first new document (= documents in all indices). */
  get firstNew(): number {
    return this.starts[this.indices.length];
  }

  get documents(): number {
    return this.firstNew + this.newDocuments;
  }

  isNew(ordinal: number): boolean {
    return ordinal >= this.firstNew;
  }

  /** The index a combined ordinal comes from (its position in `indices`), −1 for a new document. */
  indexOf(ordinal: number): number {
    if (ordinal >= this.firstNew) return -1;
    let k = 0;
    while (ordinal >= this.starts[k + 1]) k++;
    return k;
  }

  /** The 0-based ordinal within its own source: in its index, or in the new inputs. */
  localOrdinal(ordinal: number): number {
    const k = this.indexOf(ordinal);
    return ordinal - this.starts[k === -1 ? this.indices.length : k];
  }

  /** The index directory a document comes from, as given; "" for a new document. */
  sourceName(ordinal: number): string {
    const k = this.indexOf(ordinal);
    return k === -1 ? "" : this.indices[k].dir;
  }
}
