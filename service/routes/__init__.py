"""The API's routers, one file per part: the page and health, scoring, game rooms."""
