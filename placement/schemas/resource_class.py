"""JSON schemas for resource class bodies and names."""

CUSTOM_NAME = {
    'type': 'string',
    'pattern': '^CUSTOM_[A-Z0-9_]+$',
    'maxLength': 255,
}

# POST /resource_classes, and PUT /resource_classes/{name} at 1.2 - 1.6
# (the new name).
POST_RESOURCE_CLASS = {
    'type': 'object',
    'properties': {'name': CUSTOM_NAME},
    'required': ['name'],
    'additionalProperties': False,
}
PUT_RESOURCE_CLASS_V1_2 = POST_RESOURCE_CLASS

# PUT /resource_classes/{name} at 1.7+: the path name, validated as if it
# were a body ``{"name": ...}`` so the message matches the POST one.
PUT_RESOURCE_CLASS_V1_7 = POST_RESOURCE_CLASS
