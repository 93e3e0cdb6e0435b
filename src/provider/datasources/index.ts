/** Every data source of the provider; each is one declaration in a file of its own. */
import type { ProviderContext } from "../config";
import type { DataSourceDefinition } from "../framework/resource";
import { accountDataSource } from "./account";
import { accountLoginsDataSource } from "./account-logins";
import { authorizedAppsDataSource } from "./authorized-apps";
import { availabilitiesDataSource } from "./availabilities";
import { availabilityDataSource } from "./availability";
import { childAccountDataSource } from "./child-account";
import { childAccountsDataSource } from "./child-accounts";
import { eventDataSource } from "./event";
import { eventsDataSource } from "./events";
import { grantsDataSource } from "./grants";
import { invoiceDataSource } from "./invoice";
import { invoicesDataSource } from "./invoices";
import { maintenanceDataSource } from "./maintenance";
import { notificationsDataSource } from "./notifications";
import { oauthClientsDataSource } from "./oauth-clients";
import { paymentMethodsDataSource } from "./payment-methods";
import { profileDataSource } from "./profile";
import { profileLoginsDataSource } from "./profile-logins";
import { sshKeyDataSource } from "./ssh-key";
import { sshKeysDataSource } from "./ssh-keys";
import { tagDataSource } from "./tag";
import { tagsDataSource } from "./tags";
import { tokensDataSource } from "./tokens";
import { trustedDevicesDataSource } from "./trusted-devices";

export const dataSources: readonly DataSourceDefinition<ProviderContext>[] = [
  profileDataSource,
  accountDataSource,
  accountLoginsDataSource,
  authorizedAppsDataSource,
  availabilitiesDataSource,
  availabilityDataSource,
  childAccountDataSource,
  childAccountsDataSource,
  eventDataSource,
  eventsDataSource,
  grantsDataSource,
  invoiceDataSource,
  invoicesDataSource,
  maintenanceDataSource,
  notificationsDataSource,
  oauthClientsDataSource,
  paymentMethodsDataSource,
  profileLoginsDataSource,
  sshKeyDataSource,
  sshKeysDataSource,
  tagDataSource,
  tagsDataSource,
  tokensDataSource,
  trustedDevicesDataSource,
];
