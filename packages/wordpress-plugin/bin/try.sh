#!/usr/bin/env bash
# Starts a fresh WordPress (Debian's package, php -S, MariaDB on 127.0.0.1:3306) with the plugin
# active, next to the real service on the embedded store, and prints how to connect them.
# Needs: php-cli php-mysql php-xml php-mbstring php-curl wordpress, a running MariaDB with
# root and an empty password on 127.0.0.1, and `npm ci && npm run build` done once.
# WP_PORT=8080 picks WordPress's port (default: a free one).
set -euo pipefail
cd "$(dirname "$0")/../../.."
exec node --conditions=source --import tsx packages/wordpress-plugin/test/support/try-it.ts
