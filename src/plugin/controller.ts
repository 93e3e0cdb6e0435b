/**
 * go-plugin's housekeeping services: GRPCController, GRPCStdio and health.
 *
 * The engine ends a plugin by calling GRPCController.Shutdown, closing the connection and
 * waiting 2 s before SIGKILL; every plugin start costs that wait if we linger, so we exit as
 * soon as the answer is on the wire and the provider has released what it holds (a proxy
 * token to revoke), within a bound that stays under the engine's patience.
 */
import { GrpcError, Status } from "./grpc/status";
import type { GrpcServer } from "./grpc/server";
import { grpc, plugin } from "./proto/gen/messages";

export interface PluginServicesOptions {
  /** Ends the process; called once the Shutdown answer has been sent. */
  readonly exit: (code: number) => void;
  /** Runs between the Shutdown answer and exit; cut short after RELEASE_MS. */
  readonly release?: () => Promise<void>;
}

/** Health names go-plugin checks: "plugin" (its GRPCServiceName) and "" (the whole server). */
const HEALTHY_SERVICES = new Set(["", "plugin"]);

/** Upper bound on waiting for the Shutdown answer to flush before going on anyway. */
const SHUTDOWN_FLUSH_MS = 250;
/** Upper bound on the provider's release; the engine kills us 2 s after Shutdown. */
const RELEASE_MS = 1500;

export function registerPluginServices(server: GrpcServer, options: PluginServicesOptions): void {
  let ending: Promise<void> | undefined;
  const end = () =>
    (ending ??= (async () => {
      if (options.release) await Promise.race([options.release().catch(() => {}), new Promise((r) => setTimeout(r, RELEASE_MS).unref())]);
      options.exit(0);
    })());
  server.unary("/plugin.GRPCController/Shutdown", (bytes, call) => {
    plugin.Empty.decode(bytes);
    call.afterResponse(() => void end());
    setTimeout(() => void end(), SHUTDOWN_FLUSH_MS);
    return plugin.Empty.encode({}).finish();
  });

  // Our stderr already goes straight to the engine, so there is nothing to relay: a stream
  // that ends at once, which go-plugin's client reads as EOF and stops listening.
  server.serverStream("/plugin.GRPCStdio/StreamStdio", (bytes) => {
    plugin.Empty.decode(bytes);
  });

  server.unary("/grpc.health.v1.Health/Check", (bytes) => {
    const { service } = grpc.health.v1.HealthCheckRequest.decode(bytes);
    if (!HEALTHY_SERVICES.has(service ?? "")) throw new GrpcError(Status.NOT_FOUND, `unknown service ${service}`);
    return grpc.health.v1.HealthCheckResponse.encode({ status: grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING }).finish();
  });
}
