"""What the push channel's services and selectors refuse, as the API and the pages show it."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from core.errors import ServiceError


class DeviceError(ServiceError):
    code = "invalid_subscription"
    default_message = gettext_lazy("This push subscription is not valid.")


class TooManyDevices(DeviceError):
    code = "too_many_devices"


class EndpointTaken(DeviceError):
    status_code = 409
    code = "endpoint_taken"
    default_message = gettext_lazy(
        "This device's push subscription belongs to another account. Ask the browser for a new"
        " one (turn notices off and on again on this device)."
    )


class NoSuchDevice(DeviceError):
    status_code = 404
    code = "no_such_device"
    default_message = gettext_lazy("No such device.")
