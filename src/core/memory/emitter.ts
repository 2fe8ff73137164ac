/** A tiny typed event emitter (core has no vscode). `hasListeners` lets hot paths skip building events. */
export interface Disposable {
  dispose(): void;
}

export class Emitter<T> {
  private readonly listeners = new Set<(e: T) => void>();

  event = (listener: (e: T) => void): Disposable => {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  };

  hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** A throwing listener must break neither the memory nor the other listeners. */
  fire(e: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(e);
      } catch {
        // listeners are views and recorders; their failures are theirs
      }
    }
  }
}
