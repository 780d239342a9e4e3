/** gzip for request bodies: Node's zlib (off the main thread) where present, `CompressionStream` elsewhere. */
import { builtinModule } from "./platform.js";

interface ZlibLike {
  gzip(input: Uint8Array, callback: (error: Error | null, result: Uint8Array) => void): void;
}

let zlib: ZlibLike | null | undefined;

function nodeZlib(): ZlibLike | undefined {
  if (zlib === undefined) zlib = builtinModule<ZlibLike>("node:zlib") ?? null;
  return zlib ?? undefined;
}

/** The gzip encoding of `input`. */
export async function gzip(input: Uint8Array): Promise<Uint8Array> {
  const node = nodeZlib();
  if (node !== undefined) {
    return new Promise((resolve, reject) =>
      node.gzip(input, (error, result) => (error === null ? resolve(result) : reject(error))),
    );
  }
  const stream = new Blob([input as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
