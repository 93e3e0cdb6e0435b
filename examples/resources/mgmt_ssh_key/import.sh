# An SSH key is imported by its numeric id.
terraform import mgmt_ssh_key.laptop 12345
