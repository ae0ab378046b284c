"""How the console writes dates and times: one form everywhere, to the second, the form the console's
own columns use (core.console.to_the_second). Django reads these through FORMAT_MODULE_PATH."""

DATETIME_FORMAT = "Y-m-d H:i:s"
SHORT_DATETIME_FORMAT = "Y-m-d H:i:s"
DATE_FORMAT = "Y-m-d"
SHORT_DATE_FORMAT = "Y-m-d"
TIME_FORMAT = "H:i:s"
