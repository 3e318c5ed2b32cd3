#!/usr/bin/env bash
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Reads Rhino's secrets from files into the environment, where FLINK_PROPERTIES refers to them
# (the official image's entrypoint runs every value through envsubst), so no secret is written
# into an image, a compose file or a manifest. Then hands over to the official entrypoint.
set -euo pipefail

# <VAR>_FILE names a file (a compose secret, a mounted Kubernetes Secret) holding <VAR>'s value.
for var in RHINO_REST_TOKEN RHINO_REPLICATION_SECRET; do
  file_var="${var}_FILE"
  file="${!file_var:-}"
  if [[ -n "$file" ]]; then
    if [[ ! -r "$file" ]]; then
      echo "rhino-entrypoint: $file_var names $file, which cannot be read" >&2
      exit 2
    fi
    export "$var=$(tr -d '\r\n' < "$file")"
  fi
done

# Flink's HDFS file system finds the Hadoop client through HADOOP_CLASSPATH.
if [[ -z "${HADOOP_CLASSPATH:-}" && -x "${HADOOP_HOME:-/nonexistent}/bin/hadoop" ]]; then
  HADOOP_CLASSPATH="$("$HADOOP_HOME/bin/hadoop" classpath)"
  export HADOOP_CLASSPATH
fi

exec /docker-entrypoint.sh "$@"
