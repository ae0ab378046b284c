"""The PostgreSQL database backend: Django's, with a health check that costs no round trip
(`base.DatabaseWrapper.is_usable`). Settings select it for every PostgreSQL `DATABASE_URL`."""
