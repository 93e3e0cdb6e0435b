/**
 * Everything that answers calls: the gRPC router with the Provider service and go-plugin's
 * side services. serve.ts loads this module only after the handshake line is out, because
 * its dependencies (protobuf runtime and messages, the msgpack codec) are most of the
 * plugin's start-up cost, and the engine can read the line and dial meanwhile.
 */
import type { ProviderServer } from "../provider/framework/server";
import { registerPluginServices } from "./controller";
import { GrpcServer } from "./grpc/server";
import { type Logger, describeError } from "./log";
import { registerProviderService } from "./provider-service";

export interface ServicesOptions {
  readonly factory: (log: Logger) => Promise<ProviderServer>;
  readonly log: Logger;
  readonly exit: (code: number) => void;
  readonly schemaResponse?: Uint8Array;
}

export function startServices(options: ServicesOptions): GrpcServer {
  const { log } = options;
  const grpc = new GrpcServer({
    onError: (path, e) => log("error", `${path} failed`, { error: describeError(e), stack: e instanceof Error ? e.stack : undefined }),
  });
  const provider = registerProviderService(grpc, () => options.factory(log), { log, schemaResponse: options.schemaResponse });
  registerPluginServices(grpc, { exit: options.exit, release: provider.release });
  return grpc;
}
