import { Sfc32 } from "../../src/sketch/random-vectors.js";

/**
 * The seeded random source of the benchmark generators: sfc32 (the project's own generator)
 * with the few distributions they need. One stream per purpose, so changing how one part
 * draws does not shift the others.
 */
export class Random {
  private readonly gen: Sfc32;
  private spare: number | null = null;

  constructor(seed: number, stream: number) {
    this.gen = new Sfc32(seed, stream);
  }

  /** Uniform in [0, 1) with 32 random bits. */
  uniform(): number {
    return this.gen.nextUint32() / 0x1_0000_0000;
  }

  uint32(): number {
    return this.gen.nextUint32();
  }

  /** Integer in [0, n), n ≤ 2^32. */
  below(n: number): number {
    return Math.floor(this.uniform() * n);
  }

  /** Standard normal by Box–Muller (the second value of each pair is kept for the next call). */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    const u = 1 - this.uniform();
    const v = this.uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Log-normal: exp(μ + σ·Z); its median is e^μ. */
  logNormal(mu: number, sigma: number): number {
    return Math.exp(mu + sigma * this.normal());
  }
}
