/** Every data source of the provider; each is one declaration in a file of its own. */
import type { ProviderContext } from "../config";
import type { DataSourceDefinition } from "../framework/resource";
import { profileDataSource } from "./profile";

export const dataSources: readonly DataSourceDefinition<ProviderContext>[] = [profileDataSource];
