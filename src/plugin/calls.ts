/**
 * What the plugin loads once the first answer is on the wire (or for the first call that needs
 * it): the Provider service and go-plugin's controller, and behind them the protobuf runtime
 * and messages and the msgpack codec. A bundle of its own, dist/calls.js, required by
 * services.ts at run time, so that node neither reads nor compiles it before the first answer
 * (it is four fifths of what services.ts would otherwise bundle).
 */
import { setFlagsFromString } from "node:v8";

export { registerProviderService } from "./provider-service";
export { registerPluginServices } from "./controller";

/**
 * No optimizing compiler for what runs from here on: the engines start the plugin for a few
 * hundred calls at a time, and TurboFan's compiles (on a thread of their own, competing with
 * the engine for the cores) cost more CPU than the optimized code saves in a process that
 * short (bench/rpc-calls.ts measures it). Sparkplug's baseline code stays. Set here, not on
 * the command line, so that it covers exactly the code that answers the calls.
 */
setFlagsFromString("--max-opt=1");
