/**
 * Everything that answers calls: the gRPC router with the Provider service and go-plugin's
 * side services. serve.ts loads this module only after the handshake line is out.
 *
 * The calls an engine makes the moment it connects (go-plugin's StreamStdio and broker stream,
 * then GetProviderSchema) are answered before the rest is loaded: the protobuf runtime and
 * messages, the msgpack codec and the Provider service cost about as much as everything else
 * between the handshake line and the schema answer. The rest is loaded as soon as that answer
 * is on the wire (the engine then takes a while with it), or by the first call that needs it.
 * It is calls.ts, a bundle of its own (dist/calls.js), so node does not even read or compile it
 * before the first answer.
 */
import type { ServerStream } from "./h2/connection";
import type { IncomingHeaders } from "./h2/headers";
import type { ProviderServer } from "../provider/framework/server";
import { GrpcServer } from "./grpc/server";
import { type Logger, errorFields } from "./log";

export interface ServicesOptions {
  readonly factory: (log: Logger) => Promise<ProviderServer>;
  readonly log: Logger;
  readonly exit: (code: number) => void;
  readonly schemaResponse?: Uint8Array;
}

export interface Router {
  handleStream(stream: ServerStream, headers: IncomingHeaders): void;
}

const STREAM_STDIO = "/plugin.GRPCStdio/StreamStdio";
/** go-plugin's broker, which we do not serve: no route, so UNIMPLEMENTED, as from the full router. */
const BROKER = "/plugin.GRPCBroker/StartStream";
const GET_PROVIDER_SCHEMA = "/tfplugin6.Provider/GetProviderSchema";

export function startServices(options: ServicesOptions): Router {
  const { log } = options;
  const onError = (path: string, e: unknown) => log("error", `${path} failed`, errorFields(e));

  let all: GrpcServer | undefined;
  const loadAll = (): GrpcServer => {
    if (all) return all;
    const { registerProviderService, registerPluginServices } = require("./calls") as typeof import("./calls");
    all = new GrpcServer({ onError });
    const provider = registerProviderService(all, () => options.factory(log), { log, schemaResponse: options.schemaResponse });
    registerPluginServices(all, { exit: options.exit, release: provider.release });
    return all;
  };

  // Both requests are empty messages: nothing to decode. Once everything is loaded, the full
  // router answers these calls too, the same way.
  const first = new GrpcServer({ onError });
  const firstPaths = new Set([STREAM_STDIO, BROKER]);
  // Our stderr already goes straight to the engine, so there is nothing to relay: a stream that ends at once.
  first.serverStream(STREAM_STDIO, () => {});
  const schema = options.schemaResponse;
  if (schema) {
    firstPaths.add(GET_PROVIDER_SCHEMA);
    first.unary(GET_PROVIDER_SCHEMA, (_request, call) => {
      call.afterResponse(() => setImmediate(loadAll));
      return schema;
    });
  }

  return { handleStream: (stream, headers) => (!all && firstPaths.has(headers[":path"]) ? first : loadAll()).handleStream(stream, headers) };
}
