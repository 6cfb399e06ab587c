// The timeline's geometry: its size, the time scale (the time at the left edge of the
// plot and ms per CSS pixel) and where each node's lane is.

/** Height of the time axis row; width of the gutter of node names (CSS px). */
export const AXIS_H = 38;
export const GUTTER = 46;
/** The zoom range (ms per CSS pixel). */
export const MIN_MS_PER_PX = 0.02;
export const MAX_MS_PER_PX = 5000;

export class TimelineGeometry {
  w = 600;
  hgt = 300;
  /** ms per CSS pixel */
  msPerPx = 3.5;
  /** time at the left edge of the plot */
  t0 = 0;
  readonly #lanes: () => number;

  /** `lanes`: how many nodes have a lane. */
  constructor(lanes: () => number) {
    this.#lanes = lanes;
  }

  get plotW(): number {
    return Math.max(10, this.w - GUTTER);
  }

  /** The visible window [t0, t1] in simulated ms. */
  window(): [number, number] {
    return [this.t0, this.t0 + this.plotW * this.msPerPx];
  }

  xOf(t: number): number {
    return GUTTER + (t - this.t0) / this.msPerPx;
  }

  laneH(): number {
    return (this.hgt - AXIS_H - 4) / Math.max(1, this.#lanes());
  }
  laneTop(n: number): number {
    return AXIS_H + n * this.laneH();
  }
  laneMid(n: number): number {
    return this.laneTop(n) + Math.min(this.laneH() * 0.42, 26);
  }
}
