/** A tiny typed event emitter (core has no vscode; the extension adapts it to a vscode.EventEmitter). */
export interface Disposable {
  dispose(): void;
}

export class Emitter<T> {
  private readonly listeners = new Set<(e: T) => void>();

  event = (listener: (e: T) => void): Disposable => {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  };

  /** Lets hot paths skip building an event nobody listens to. */
  hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** A throwing listener (a view, a recorder) must break neither the emitter's owner nor the other listeners. */
  fire(e: T, onError?: (err: unknown) => void): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(e);
      } catch (err) {
        onError?.(err);
      }
    }
  }
}
