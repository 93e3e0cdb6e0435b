# A tag is imported by its label.
terraform import mgmt_tag.production production
