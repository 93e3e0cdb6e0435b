/**
 * What the plugin loads once the first answer is on the wire (or for the first call that needs
 * it): the Provider service and go-plugin's controller, and behind them the protobuf runtime
 * and messages and the msgpack codec. A bundle of its own, dist/calls.js, required by
 * services.ts at run time, so that node neither reads nor compiles it before the first answer
 * (it is four fifths of what services.ts would otherwise bundle).
 */
export { registerProviderService } from "./provider-service";
export { registerPluginServices } from "./controller";
