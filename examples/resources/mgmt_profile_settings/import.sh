# The profile of the user the provider acts as: any id works; "profile" by convention.
terraform import mgmt_profile_settings.me profile
