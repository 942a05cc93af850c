# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 116: a North Sea / Baltic wind farm operator.

Brief: an operator of onshore and offshore wind farms in Germany, Denmark and Brazil. Teams run
turbine SCADA and PLCs, substations and grid operator portals, met masts and lidars, crew transfer
vessels and helicopter ops, blade-inspection drones, a 24/7 control room with badge and door codes,
spare-part warehouses and an energy trading desk talking to exchange APIs. People: service techs,
control-room operators, SCADA/OT engineers, developers, traders, marine coordinators and their AI agents.
Languages: English, German, Danish, Brazilian Portuguese.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_116.py [out.jsonl]

Kinds, secret: scada_admin_password, plc_password, rtu_substation_password, grid_portal_password, met_mast_logger_password, lidar_web_password, vessel_wifi_key, office_wifi_key, door_access_code, alarm_code, key_safe_code, badge_pin, warehouse_gate_code, safe_combination, helicopter_portal_password, drone_account_password, trading_api_client_secret, entsoe_api_token, nordpool_api_password, vpn_psk, snmp_community, ssh_private_key, bitlocker_recovery_key, mfa_recovery_codes, totp_seed, sim_pin_puk, aws_secret_key, github_token, gitlab_token, slack_bot_token, slack_webhook_url, teams_webhook_url, stripe_secret_key, twilio_auth_token, sendgrid_api_key, openai_api_key, anthropic_api_key, google_api_key, azure_storage_key, postgres_connection_string, mongodb_connection_string, influxdb_token, grafana_api_token, telegram_bot_token, datadog_api_key, npm_token, docker_pat, vault_token, jwt_session_token, session_cookie, opcua_cert_passphrase, service_laptop_password, mqtt_broker_password, ldap_bind_password, basic_auth_url, weather_api_key.

Kinds, benign: turbine_serial_number, wtg_asset_id, scada_alarm_code, plc_error_code, work_order_number, sap_material_number, invoice_number, purchase_order_number, ticket_id, git_commit_sha, sha256_checksum, docker_image_digest, ssh_public_key, ssh_host_fingerprint, stripe_publishable_key, recaptcha_site_key, aws_access_key_id, documented_example_key, placeholder_password, env_var_reference, masked_secret, vault_reference, password_policy, revoked_token, eic_code, meter_point_id, mmsi_number, imo_number, helicopter_registration, drone_serial_number, asset_uuid, mac_address, ip_address, cert_thumbprint, pgp_fingerprint, twilio_account_sid, analytics_id, firmware_version, cve_id, blade_serial, booking_reference, product_code, badge_number, phone_extension, key_cabinet_slot, notam_id, gps_coordinates, trade_order_id, correlation_id, oauth_client_id, fire_alarm_zone, lot_number, kms_key_arn, test_card_number, azure_tenant_id.
"""

import json
import random
import string
import sys

SEED = 536156


def corpus():
    """Every row: {"text": ..., "label": "secret" | "benign", "kind": ...}."""
    rng = random.Random(SEED)
    rows = []

    UP = string.ascii_uppercase
    LO = string.ascii_lowercase
    DG = string.digits
    AN = UP + LO + DG

    def pick(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def hx(n):
        return pick("0123456789abcdef", n)

    def HX(n):
        return pick("0123456789ABCDEF", n)

    def an(n):
        return pick(AN, n)

    def up(n):
        return pick(UP + DG, n)

    def dg(n):
        return pick(DG, n)

    def b64(n):
        return pick(AN + "+/", n)

    def u64(n):
        return pick(AN + "-_", n)

    def b32(n):
        return pick(UP + "234567", n)

    def uid():
        return f"{hx(8)}-{hx(4)}-4{hx(3)}-{rng.choice('89ab')}{hx(3)}-{hx(12)}"

    words = [
        "Harbour",
        "Nordsee",
        "Vindmolle",
        "Rotor",
        "Kuling",
        "Brise",
        "Ventania",
        "Moewe",
        "Laks",
        "Tormenta",
        "Hafen",
        "Nacelle",
        "Gondel",
        "Sturm",
        "Havvind",
        "Fyrtaarn",
        "Esbjerg",
        "Husum",
        "Natal",
        "Farol",
        "Maresia",
        "Leuchtturm",
        "Skagen",
        "Jangada",
    ]
    syms = "!#$%&*?.-_@"

    def pw():
        w = rng.choice(words)
        s = rng.choice(syms)
        style = rng.randrange(5)
        if style == 0:
            return f"{w}{s}{dg(4)}"
        if style == 1:
            return f"{w.lower()}.{rng.choice(words)}{dg(2)}"
        if style == 2:
            return f"{dg(2)}{w}{s}{rng.choice(words).lower()}"
        if style == 3:
            return f"{w[:4]}{s}{w[4:].upper()}{dg(3)}"
        return f"{rng.choice(words)}{w}{dg(2)}{s}"

    def jwt():
        return f"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{u64(rng.randint(60, 90))}.{u64(43)}"

    def S(kind, text):
        rows.append({"text": text, "label": "secret", "kind": kind})

    def B(kind, text):
        rows.append({"text": text, "label": "benign", "kind": kind})

    # ------------------------------------------------------------------ secrets
    k = "scada_admin_password"
    S(
        k,
        f"SCADA login for Westküste cluster: user `scada_admin` / pw `{pw()}` – bitte nicht weitergeben",
    )
    S(k, f"handover nat: WindPRO/SCADA server admin pw was changed today, new one is {pw()}")
    S(k, f"Adgangskode til SCADA-serveren i kontrolrummet: {pw()} (brugernavn: operator01)")
    S(k, f"senha do SCADA do parque Rio do Fogo → admin / {pw()}")

    k = "plc_password"
    S(k, f"PLC WTG-17 (Beckhoff CX) Zugang: Administrator / {pw()}")
    S(k, f'TIA portal project protection pw for pitch PLC: "{pw()}" don\'t lose it again')
    S(k, f"plc-senha do controlador do yaw, aerogerador 09:\n{pw()}")
    S(k, f"Siemens S7 CPU protection level 3, password = {pw()}")

    k = "rtu_substation_password"
    S(k, f"RTU Umspannwerk Büttel – Webinterface admin:{pw()}")
    S(k, f"substation 150kV relay (SEL-751) level 2 access pw `{pw()}` per Jens")
    S(k, f"Transformerstation Anholt, RTU login: service / {pw()} – skiftes efter revision")

    k = "grid_portal_password"
    S(k, f"TenneT Netzportal Login: einspeisung@windco.de, Passwort {pw()}")
    S(k, f"Energinet portal – bruger ops-dk, kode: {pw()}")
    S(k, f"Portal ONS/SINTEGRE: usuário cop.windco senha {pw()}")
    S(k, f"50Hertz Redispatch-Portal pw hat sich geändert -> {pw()}")

    k = "met_mast_logger_password"
    S(k, f"Campbell CR1000X at met mast MM-02: security code {dg(4)}, web pw {pw()}")
    S(k, f"Messmast Dörpen Logger (Ammonit Meteo-40) — admin pw: {pw()}")
    S(k, f"logger da torre anemométrica TA-3, senha de acesso remoto: {pw()}")

    k = "lidar_web_password"
    S(k, f"WindCube v2.1 web UI: admin / {pw()} (Lidar ved Horns Rev 3)")
    S(k, f"ZX300 lidar remote login pw is {pw()}, user zxadmin")
    S(k, f"Nacelle-Lidar auf WTG-B04: Passwort für das Service-Menü `{pw()}`")

    k = "vessel_wifi_key"
    S(k, f"CTV Windcat 27 guest Wi-Fi: SSID WC27-Crew, WPA2 key {an(12)}")
    S(k, f"Wifi-kode på Esvagt Alba: {pw()}")
    S(k, f"SOV crew wifi pw ist jetzt {pw()} (SSID: SOV-CREW-5G)")
    S(k, f"senha do wi-fi da embarcação de apoio: {an(10)}")

    k = "office_wifi_key"
    S(k, f'Büro Husum WLAN "WindCo-Staff" Schlüssel: {pw()}')
    S(k, f"Fortaleza office wifi → rede WINDCO-BR, senha {pw()}")
    S(k, f"WPA key for the warehouse AP in Esbjerg: {an(16)}")

    k = "door_access_code"
    S(k, f"Control room door code changed to {dg(6)}#, valid from Monday")
    S(k, f"Türcode Leitwarte Nebeneingang: {dg(4)} (danach Raute drücken)")
    S(k, f"Dørkode til servicebygningen på havnen: {dg(4)}")
    S(k, f"código da porta da sala de controle: {dg(5)}")

    k = "alarm_code"
    S(k, f"Alarmanlage Ersatzteillager Emden deaktivieren mit {dg(4)} + OFF")
    S(k, f"alarm code for O&M base Grenaa is {dg(4)} – arm on leaving, disarm within 30s")
    S(k, f"Alarmkode lager: {dg(5)}, tast derefter ✓")
    S(k, f"código do alarme da base de O&M: {dg(4)}")

    k = "key_safe_code"
    S(k, f"Schlüsseltresor am Turmfuß WEA 12: Code {dg(4)}")
    S(k, f"Key safe at the substation gate, combo {dg(4)}, keys for the HV room inside")
    S(k, f"Nøgleboks ved mølle 7 — kode {dg(4)}")
    S(k, f"cofre de chaves do aerogerador AG-21: {dg(4)}")

    k = "badge_pin"
    S(k, f"my badge PIN for the turnstile is {dg(4)}, note for my agent: remember it")
    S(k, f"Ausweis-PIN (Zutritt Leitwarte) für Leiharbeiter T. Krüger: {dg(4)}")
    S(k, f"PIN til adgangskort: {dg(4)} – Mette")

    k = "warehouse_gate_code"
    S(k, f"Gate code spare-parts yard Bremerhaven: *{dg(4)}#")
    S(k, f"Tor Lager Nord → Code {dg(6)} für LKW-Anlieferung")
    S(k, f"portão do almoxarifado em Parazinho: código {dg(4)}")
    S(k, f"Portkode til reservedelslageret: {dg(4)}")

    k = "safe_combination"
    S(k, f"safe in the shift lead office: combination {dg(2)}-{dg(2)}-{dg(2)}")
    S(k, f"Tresor Schichtleiter (Notfall-Schlüssel HV): Kombi {dg(6)}")
    S(k, f"combinação do cofre do escritório: {dg(2)}-{dg(2)}-{dg(2)}")

    k = "helicopter_portal_password"
    S(k, f"HeliOps booking portal (offshore flights) login ops@windco.dk / {pw()}")
    S(k, f"Hubschrauber-Dispo Portal, Passwort: {pw()}")
    S(k, f"HTM login for the helicopter passenger manifest: pw {pw()}")

    k = "drone_account_password"
    S(k, f"DJI account for the M300 blade inspection drones: drones@windco.de / {pw()}")
    S(k, f"Drone pilot: FlightHub 2 pw = {pw()}")
    S(k, f"senha da conta do drone de inspeção de pás: {pw()}")

    k = "trading_api_client_secret"
    S(k, f"EPEX M7 API client_secret: {an(40)}")
    S(k, f"trading-bot config:\nclient_id: windco-intraday\nclient_secret: {u64(48)}")
    S(k, f"Handelsdesk: OAuth secret für die Börsen-API ist {an(32)} (prod!)")
    S(k, f"export TRADING_API_SECRET='{an(36)}'")

    k = "entsoe_api_token"
    S(k, f"ENTSO-E transparency securityToken={uid()}")
    S(
        k,
        f"curl 'https://web-api.tp.entsoe.eu/api?securityToken={uid()}&documentType=A75&in_Domain=10YDE-VE-------2'",
    )
    S(k, f"vores ENTSO-E token til prognose-jobbet: {uid()}")

    k = "nordpool_api_password"
    S(k, f"Nord Pool API user windco_trader pw {pw()}")
    S(k, f"Nord Pool auction API: username=WINDCOBID password={pw()}")
    S(k, f"Senha do Nord Pool (conta de testes não, é a de produção): {pw()}")

    k = "vpn_psk"
    S(k, f"IPsec tunnel Leitwarte ↔ OSS Baltic 2, PSK: {an(32)}")
    S(k, f"pre-shared key til site-to-site VPN (Anholt): {pw()}{dg(3)}")
    S(k, f"crypto isakmp key {an(24)} address 10.44.0.1")
    S(k, f"WireGuard peer parque BR:\nPrivateKey = {b64(43)}=")

    k = "snmp_community"
    S(k, f"SNMP community (rw) für die Turm-Switches: {an(14)}")
    S(k, f"snmp-server community {an(12)} RW 10")
    S(k, f"SNMPv3 authPass for the substation switches: {pw()}")

    k = "ssh_private_key"
    S(
        k,
        f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW{b64(24)}\n{b64(64)}",
    )
    S(
        k,
        f"key for the scada jump host (don't commit): -----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA{b64(64)}...",
    )
    S(
        k,
        f"chave privada do gateway:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI{b64(43)}oAoGCCqGSM49AwEHoUQDQgAE{b64(20)}",
    )

    k = "bitlocker_recovery_key"
    S(
        k,
        "BitLocker recovery key service laptop SL-0"
        + dg(2)
        + ": "
        + "-".join(dg(6) for _ in range(8)),
    )
    S(
        k,
        "Wiederherstellungsschlüssel (Techniker-Laptop von Ole): "
        + "-".join(dg(6) for _ in range(8)),
    )
    S(
        k,
        "chave de recuperação BitLocker do notebook do técnico:\n"
        + "-".join(dg(6) for _ in range(8)),
    )

    k = "mfa_recovery_codes"
    S(k, "GitHub recovery codes for ops-bot: " + " ".join(f"{hx(5)}-{hx(5)}" for _ in range(4)))
    S(k, "Backup-Codes für das Netzportal (2FA): " + ", ".join(dg(8) for _ in range(5)))
    S(
        k,
        "Gendannelseskoder til Microsoft-kontoen:\n"
        + "  ".join(f"{up(4)}-{up(4)}" for _ in range(4)),
    )

    k = "totp_seed"
    S(k, f"TOTP secret for the shared trading account: {b32(32)}")
    S(k, f"otpauth://totp/WindCo:scada-ops?secret={b32(32)}&issuer=WindCo")
    S(k, f"2FA-Seed (falls das Handy weg ist): {' '.join(b32(4) for _ in range(8))}")

    k = "sim_pin_puk"
    S(k, f"Iridium sat phone on the CTV: SIM PIN {dg(4)}, PUK {dg(8)}")
    S(k, f"SIM im Turm-Router WEA 03: PIN {dg(4)} / PUK {dg(8)}")
    S(k, f"PIN do chip do modem da torre anemométrica: {dg(4)}")

    k = "aws_secret_key"
    S(k, f"aws_access_key_id = AKIA{up(16)}\naws_secret_access_key = {b64(40)}")
    S(k, f"AWS creds für den Forecast-Bucket: AKIA{up(16)} / {b64(40)}")
    S(k, f"export AWS_SECRET_ACCESS_KEY={b64(40)}")
    S(k, f"chave secreta AWS do pipeline de dados SCADA: {b64(40)}")

    k = "github_token"
    S(k, f"GH_TOKEN=ghp_{an(36)} for the turbine-config repo")
    S(k, f"git clone https://oauth2:ghp_{an(36)}@github.com/windco/scada-exporter.git")
    S(k, f"fine-grained PAT (read-only, expires Feb): github_pat_{an(22)}_{an(59)}")

    k = "gitlab_token"
    S(k, f"GitLab runner token for the OT pipelines: glpat-{u64(20)}")
    S(k, f"Zugangstoken GitLab (Projekt plc-backups): glpat-{u64(20)}")
    S(k, f"CI_JOB deploy key glpat-{u64(20)} — virker til marts")

    k = "slack_bot_token"
    S(k, f"SLACK_BOT_TOKEN=xoxb-{dg(12)}-{dg(13)}-{an(24)}")
    S(k, f"Bot do #alarmes-parques: xoxb-{dg(11)}-{dg(13)}-{an(24)}")
    S(k, f"user token for the alarm relay script xoxp-{dg(12)}-{dg(12)}-{dg(13)}-{hx(32)}")

    k = "slack_webhook_url"
    S(k, f"Alarm webhook: https://hooks.slack.com/services/T{up(8)}/B{up(10)}/{an(24)}")
    S(
        k,
        f"post turbine trips to https://hooks.slack.com/services/T{up(10)}/B{up(11)}/{an(24)} (channel #wtg-trips)",
    )
    S(
        k,
        f"webhook do canal de manutenção:\nhttps://hooks.slack.com/services/T{up(8)}/B{up(10)}/{an(24)}",
    )

    k = "teams_webhook_url"
    S(
        k,
        f"Teams-Webhook Leitwarte: https://windco.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}",
    )
    S(
        k,
        f"Incoming webhook for 'Offshore Logistics' channel https://windco.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}/V2{u64(40)}",
    )
    S(
        k,
        f"Power Automate trigger url: https://prod-{dg(2)}.westeurope.logic.azure.com:443/workflows/{hx(32)}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={u64(43)}",
    )

    k = "stripe_secret_key"
    S(k, f"STRIPE_SECRET_KEY=sk_live_{an(24)}")
    S(k, f"Besucherzentrum-Shop (Tickets Führungen) Stripe live key: sk_live_51{an(97)}")
    S(k, f"restricted key for refunds: rk_live_{an(24)}")

    k = "twilio_auth_token"
    S(k, f"Twilio (SMS-Alarm an Bereitschaft): SID AC{hx(32)}, auth token {hx(32)}")
    S(k, f"TWILIO_AUTH_TOKEN={hx(32)}")
    S(k, f"Twilio API key SK{hx(32)} secret {an(32)}")

    k = "sendgrid_api_key"
    S(k, f"SENDGRID_API_KEY=SG.{u64(22)}.{u64(43)}")
    S(k, f"chave do SendGrid p/ relatórios diários: SG.{u64(22)}.{u64(43)}")
    S(k, f"Mail-Relay für Störmeldungen nutzt SG.{u64(22)}.{u64(43)}")

    k = "openai_api_key"
    S(k, f"OPENAI_API_KEY=sk-proj-{u64(48)}T3BlbkFJ{u64(48)}")
    S(k, f"key for the blade-damage classifier prototype: sk-proj-{u64(48)}T3BlbkFJ{u64(48)}")
    S(k, f"gammel nøgle til rapportgenerering: sk-{an(20)}T3BlbkFJ{an(20)}")

    k = "anthropic_api_key"
    S(k, f"ANTHROPIC_API_KEY=sk-ant-api03-{u64(93)}AA")
    S(k, f"Agent-Key fürs Schichtbuch-Tool: sk-ant-api03-{u64(93)}AA")
    S(k, f"chave da API Claude usada no bot de turnos: sk-ant-api03-{u64(93)}AA")

    k = "google_api_key"
    S(k, f"Maps key for the crew-transfer tracker: AIza{u64(35)}")
    S(k, f'GOOGLE_API_KEY="AIza{u64(35)}"  # unrestricted!!')
    S(k, f"Firebase server key til inspektions-appen: AAAA{u64(7)}:APA91b{u64(134)}")

    k = "azure_storage_key"
    S(
        k,
        f"DefaultEndpointsProtocol=https;AccountName=windcoscada;AccountKey={b64(86)}==;EndpointSuffix=core.windows.net",
    )
    S(k, f"Storage-Key für Blade-Fotos (stblades01): {b64(86)}==")
    S(
        k,
        f"SAS do container de relatórios: https://stwindcobr.blob.core.windows.net/relatorios?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2027-03-01&sig={b64(43)}%3D",
    )

    k = "postgres_connection_string"
    S(k, f"DATABASE_URL=postgresql://scada_ro:{pw()}@pg-hist.ot.windco.local:5432/turbine_history")
    S(k, f'psql "host=10.40.2.15 dbname=alarms user=ops password={pw()}"')
    S(k, f"Verbindung Historian: postgres://historian:{an(20)}@db-weather:5432/met")
    S(
        k,
        f"SQL Server de vendas de energia: Server=sql-trade01;Database=PPA;User Id=ppa_app;Password={pw()};",
    )

    k = "mongodb_connection_string"
    S(k, f"mongodb+srv://inspections:{an(16)}@cluster0.{an(5).lower()}.mongodb.net/blades")
    S(k, f"MONGO_URI=mongodb://drone_app:{pw()}@10.12.0.8:27017/flightlogs?authSource=admin")
    S(
        k,
        f"string de conexão do Mongo do app de inspeção:\nmongodb+srv://app:{an(14)}@inspecao.{an(5).lower()}.mongodb.net",
    )

    k = "influxdb_token"
    S(k, f"INFLUX_TOKEN={u64(86)}==")
    S(k, f"Influx token für Telegraf auf den Turm-Gateways: {u64(86)}==")
    S(k, f"influx auth: --token {u64(86)}== (all-access, prod bucket scada_1s)")

    k = "grafana_api_token"
    S(k, f"Grafana service account token for the wind dashboards: glsa_{an(32)}_{hx(8)}")
    S(k, f"GF token (admin) eyJrIjoi{an(40)}In0=")
    S(k, f"Grafana Cloud: glc_{an(60)}=")

    k = "telegram_bot_token"
    S(k, f"Telegram bot for the BR crew alerts: {dg(10)}:AA{u64(33)}")
    S(k, f"TELEGRAM_TOKEN={dg(10)}:AA{u64(33)}")
    S(k, f"token do bot de avisos de vento forte: {dg(9)}:AA{u64(33)}")

    k = "datadog_api_key"
    S(k, f"DD_API_KEY={hx(32)}")
    S(k, f"Datadog API key {hx(32)} + app key {hx(40)} for the edge gateways")
    S(k, f"datadog agent på SCADA-proxy: api_key: {hx(32)}")

    k = "npm_token"
    S(k, f"//registry.npmjs.org/:_authToken=npm_{an(36)}")
    S(k, f"npm publish token for @windco/hmi-widgets: npm_{an(36)}")
    S(k, f"PyPI upload token: pypi-AgEIcHlwaS5vcmc{u64(50)}")

    k = "docker_pat"
    S(k, f"docker login -u windcoops -p dckr_pat_{u64(27)}")
    S(k, f"Docker Hub PAT für die Edge-Images: dckr_pat_{u64(27)}")
    S(k, f"registry pw (harbor.ot.windco.local, robot$scada-pull): {an(32)}")

    k = "vault_token"
    S(k, f"VAULT_TOKEN=hvs.{u64(24)}")
    S(k, f"root token from the vault init (move to safe!!): hvs.{u64(90)}")
    S(k, f"Unseal key 2/5: {b64(43)}=")

    k = "jwt_session_token"
    S(k, f"Authorization: Bearer {jwt()}")
    S(k, f"token do portal do ONS capturado no DevTools: {jwt()}")
    S(k, f"Bearer-Token für die Vestas-Online-API (gültig 24h): {jwt()}")

    k = "session_cookie"
    S(k, f"Cookie: JSESSIONID={HX(32)}; scada_sess={hx(40)}")
    S(k, f"curl -b 'sessionid={an(32).lower()}' https://hmi.ot.windco.local/api/turbines")
    S(
        k,
        f"ASP.NET_SessionId={an(24).lower()} from the grid portal, still valid if you need to test",
    )

    k = "opcua_cert_passphrase"
    S(k, f"OPC UA client cert (.pfx) passphrase: {pw()}")
    S(k, f"Passphrase für das PKCS#12 vom OPC-UA-Server Park Nordergründe: {pw()}")
    S(k, f"kodeord til certifikatfilen opcua_client.p12 = {pw()}")

    k = "service_laptop_password"
    S(k, f"service laptop SL-{dg(3)} local admin: .\\svcadmin / {pw()}")
    S(k, f"Techniker-Laptop Passwort (Vestas VMP-Tool): {pw()}")
    S(k, f"senha do notebook de serviço que fica na van 2: {pw()}")
    S(k, f"Lokal admin på servicecomputeren: {pw()}")

    k = "mqtt_broker_password"
    S(k, f"mosquitto_pub -h mqtt.ot.windco.local -u metmast -P '{pw()}' -t mm/02/wind")
    S(k, f"MQTT broker creds for lidar telemetry: lidar_pub / {an(18)}")
    S(k, f"broker MQTT do parque: usuário edge, senha {pw()}")

    k = "ldap_bind_password"
    S(k, f"LDAP bind DN cn=svc-scada,ou=svc,dc=windco,dc=local pw {pw()}")
    S(k, f"AD-Servicekonto svc_historian, Kennwort: {pw()}")
    S(k, f'bindPassword: "{pw()}"')

    k = "basic_auth_url"
    S(k, f"Webcam Turmfuß: http://admin:{pw()}@10.20.7.31/snapshot.jpg")
    S(k, f"curl -u forecast:{an(16)} https://api.windforecast.example.net/v2/farms/HR3")
    S(k, f"câmera do pátio: rtsp://viewer:{pw()}@192.168.50.12:554/stream1")

    k = "weather_api_key"
    S(k, f"Meteomatics API: user windco_ops, pw {pw()}")
    S(k, f"wind forecast vendor api key: {hx(32)}")
    S(k, f"DWD/Open-Data nicht nötig, aber für den kommerziellen Forecast: apikey={an(40)}")

    # ------------------------------------------------------------------ benign
    k = "turbine_serial_number"
    B(k, f"WTG-14 nacelle serial no. {dg(6)} – gearbox swap planned Q2")
    B(k, f"Seriennummer der Anlage: V164-{dg(5)}, Baujahr 2019")
    B(k, f"Møllens serienummer er SG-{dg(7)}, se typeskilt i tårnfoden")
    B(k, f"número de série do aerogerador AG-08: N149-{dg(6)}")

    k = "wtg_asset_id"
    B(k, f"Asset ID in SAP PM: WTG-HR3-{dg(3)}")
    B(k, f"Anlagen-Kennzeichen (RDS-PP): =G{dg(3)} MDK{dg(2)} GP{dg(3)}")
    B(k, f"ativo AG-{dg(2)} do parque Rio do Fogo precisa de inspeção de pás")

    k = "scada_alarm_code"
    B(k, f"WTG-07 tripped with alarm code {dg(4)} (Yaw misalignment), reset remote ok")
    B(k, f'Fehlercode {dg(3)} "Pitch converter fault" an WEA 22 – Techniker informiert')
    B(k, f"Alarm {dg(4)}: gear oil temp high. Kode kvitteret kl. 03:12")
    B(k, f"código de alarme {dg(3)} – sobrevelocidade do rotor, parada de emergência")

    k = "plc_error_code"
    B(k, f"PLC diag buffer: event ID 16#{HX(4)}, CPU went to STOP")
    B(k, f"ADS error {dg(4)} bei Zugriff auf TwinCAT Variable – Symbol nicht gefunden")
    B(k, f"S7 error code 0x{HX(4)} on the pitch controller after firmware update")

    k = "work_order_number"
    B(k, f"Work order WO-{dg(7)}: replace main bearing seal WTG-B12")
    B(k, f"Auftrag {dg(8)} im SAP PM angelegt, Priorität 2")
    B(k, f"Arbejdsordre AO{dg(6)} lukket – olieskift gennemført")
    B(k, f"OS {dg(7)} aberta para troca do anemômetro do AG-04")

    k = "sap_material_number"
    B(k, f"Material {dg(8)} (pitch bearing bolt M36) - 40 Stk im Lager Emden")
    B(k, f"SAP material no. 1000{dg(5)} is the yaw brake pad kit")
    B(k, f"Reservedel varenr. {dg(8)}, hylde C-14")

    k = "invoice_number"
    B(k, f"Invoice INV-2026-{dg(5)} from the CTV operator is approved")
    B(k, f"Rechnungsnr. RE{dg(8)} – Kranmiete Juli, bitte an Controlling")
    B(k, f"Nota fiscal nº {dg(9)} série 1 referente ao aluguel do guindaste")

    k = "purchase_order_number"
    B(k, f"PO 45{dg(8)} for 12 lidar spare batteries raised")
    B(k, f"Bestellung 45{dg(8)} an Vestas bestätigt, Liefertermin KW 14")
    B(k, f"indkøbsordre PO-{dg(6)} er godkendt af Lars")

    k = "ticket_id"
    B(k, f"see OT-{dg(4)} in Jira for the SCADA historian disk alarm")
    B(k, f"ServiceNow INC{dg(7)}: Leitwarte Monitor 3 flackert")
    B(k, f"chamado SD-{dg(5)} aberto com o fabricante sobre o conversor")
    B(k, f"Sag {dg(6)} hos Energinet vedr. nedregulering")

    k = "git_commit_sha"
    B(k, f"fix for pitch alarm debounce landed in {hx(40)}")
    B(k, f"revert {hx(7)} – broke the Modbus polling on MM-02")
    B(k, f"deployed scada-exporter at commit {hx(40)} til alle parker")

    k = "sha256_checksum"
    B(k, f"firmware image ctrl_v4.12.bin sha256: {hx(64)}")
    B(k, f"Prüfsumme (SHA-256) der PLC-Sicherung: {hx(64)} – stimmt mit Backup überein")
    B(k, f"md5 do arquivo de log do conversor: {hx(32)}")

    k = "docker_image_digest"
    B(k, f"image: registry.windco.local/edge/telegraf@sha256:{hx(64)}")
    B(k, f"pinned the forecast container to digest sha256:{hx(64)}")
    B(k, f"Image-Digest fürs Rollback: sha256:{hx(64)}")

    k = "ssh_public_key"
    B(
        k,
        f"add this pubkey to the jump host: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64(43)} jens@laptop",
    )
    B(
        k,
        f"Öffentlicher Schlüssel für den SCADA-Backup-User: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{b64(60)}... backup@hist01",
    )
    B(
        k,
        f"chave pública do técnico (pode colar no authorized_keys): ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64(43)}",
    )

    k = "ssh_host_fingerprint"
    B(k, f"host key fingerprint of oss-gw01 is SHA256:{b64(43)} – verify before yes")
    B(k, f"ED25519 key fingerprint is SHA256:{b64(43)}.")
    B(k, f"Fingerprint vom Turm-Gateway hat sich geändert (neues Image): SHA256:{b64(43)}")

    k = "stripe_publishable_key"
    B(k, f"publishable key for the visitor-centre ticket widget: pk_live_{an(24)}")
    B(k, f"Frontend (öffentlich): STRIPE_PUBLISHABLE_KEY=pk_live_51{an(97)}")
    B(k, f"pk_test_{an(24)} is fine to keep in the repo, it is the publishable one")

    k = "recaptcha_site_key"
    B(k, f"reCAPTCHA site key for the careers page: 6L{u64(38)}")
    B(k, f'data-sitekey="6L{u64(38)}" (öffentlich, steht im HTML)')
    B(k, f"hCaptcha sitekey {uid()} på kontaktformularet")

    k = "aws_access_key_id"
    B(
        k,
        f"the access key id AKIA{up(16)} belongs to the forecast-uploader IAM user; secret lives in Vault",
    )
    B(k, f"CloudTrail: Aufruf mit Key-ID AKIA{up(16)} um 02:14 UTC, bitte prüfen wer das ist")
    B(k, f"IAM key AKIA{up(16)} deaktiveret i går (kun ID, ingen secret her)")

    k = "documented_example_key"
    B(
        k,
        "AWS docs example: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY – use these in the README",
    )
    B(k, "Beispiel aus der Stripe-Doku: sk_test_4eC39HqLyjWDarjtT1zdp7dc")
    B(
        k,
        "exemplo da doc do JWT.io: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    )

    k = "placeholder_password"
    B(
        k,
        "DATABASE_URL=postgresql://scada_ro:<password>@pg-hist.ot.windco.local:5432/turbine_history",
    )
    B(k, "Passwort: CHANGEME (wird beim ersten Login erzwungen geändert)")
    B(k, "senha: xxxxxxxx — preencher com a do cofre antes de rodar")
    B(k, "mqtt password = your-password-here")

    k = "env_var_reference"
    B(k, 'psql "host=10.40.2.15 user=ops password=$PGPASSWORD"')
    B(k, "client_secret: ${TRADING_API_SECRET}  # injected by the CI")
    B(k, "Passwort kommt aus %SCADA_ADMIN_PW% – nicht hardcoden")
    B(k, "token: {{ .Values.influx.token }}")

    k = "masked_secret"
    B(k, f"API key ends in …{hx(4)} (rest masked in the portal)")
    B(k, f"Log: login ok user=operator01 password=******** src=10.40.{dg(1)}.{dg(2)}")
    B(k, f"chave: sk_live_****************{an(4)} (mascarada no dashboard)")
    B(k, "Kodeord: •••••••••• (se 1Password)")

    k = "vault_reference"
    B(k, "SCADA admin pw is in 1Password → vault 'OT Offshore' → item 'SCADA WinCC admin'")
    B(k, "Zugangsdaten Netzportal liegen in Vault unter secret/ot/grid/tennet")
    B(k, "senha do Nord Pool está no KeePass do trading, entrada 'NP prod'")
    B(k, "Dørkoden står i Bitwarden-samlingen 'Kontrolrum', spørg vagtchefen")

    k = "password_policy"
    B(k, "Policy: PLC passwords min. 14 chars, rotate every 180 days, no reuse of last 5")
    B(
        k,
        "Türcodes werden quartalsweise geändert; neue Codes nur persönlich durch den Schichtleiter",
    )
    B(k, "Regra: nunca salvar senha de SCADA em chat nem em memória do agente")
    B(k, "PIN skal være 6 cifre og må ikke være fødselsdato")

    k = "revoked_token"
    B(k, f"old GitLab token glpat-…{u64(4)} was revoked after the leak, new one in Vault")
    B(
        k,
        f"Slack-Webhook von letzter Woche ist gelöscht (Kanal #test-alarms archiviert), ID B{up(10)}",
    )
    B(k, f"token do bot antigo foi revogado em 03/11; ID do bot {dg(10)}")

    k = "eic_code"
    B(k, f"EIC code for our balancing group: 11X{up(12)}{rng.choice(UP)}")
    B(k, "Regelzone TenneT DE: 10YDE-EON------1, in_Domain bei der ENTSO-E-Abfrage")
    B(k, f"W-code for Anholt production unit: 45W{dg(12)}{rng.choice(UP)}")

    k = "meter_point_id"
    B(k, f"Zählpunkt Einspeisung WP Dörpen: DE000{dg(6)}{up(22)}")
    B(k, f"MaLo-ID {dg(11)} im Marktstammdatenregister")
    B(k, f"målepunkts-ID (GSRN) 57{dg(16)}")

    k = "mmsi_number"
    B(k, f"CTV Windcat 27 MMSI {rng.choice(['219', '211', '235'])}{dg(6)} – track on AIS")
    B(k, f"MMSI do barco de apoio: 710{dg(6)}")
    B(k, f"SOV ist unter MMSI 2190{dg(5)} im AIS, Ankunft 06:30")

    k = "imo_number"
    B(k, f"jack-up vessel IMO {dg(7)} booked for blade exchange in May")
    B(k, f"Skibets IMO-nummer: 9{dg(6)}")
    B(k, f"Kranschiff IMO 9{dg(6)}, Mobilisierung ab Esbjerg")

    k = "helicopter_registration"
    B(k, f"Heli D-H{up(3).replace('0', 'A')} landing on OSS helideck at 10:40, 4 PAX")
    B(k, f"Helikopter OY-H{rng.choice(UP)}{rng.choice(UP)} på vej til Horns Rev, ETA 14:05")
    B(
        k,
        f"helicóptero PR-{rng.choice(UP)}{rng.choice(UP)}{rng.choice(UP)} confirmado para a troca de turma",
    )

    k = "drone_serial_number"
    B(k, f"drone SN 1ZNBJ{up(9)} logged 14 flights this week")
    B(k, f"Drohne M300 RTK, Seriennummer {up(14)} – Propeller getauscht")
    B(k, f"LBA-Registrierung Betreiber-ID DEU{dg(2)}{up(10)}")

    k = "asset_uuid"
    B(k, f"turbine entity id in the digital twin: {uid()}")
    B(k, f"request-id {uid()} – forecast job failed with 504")
    B(k, f"UUID des Messmasts in der Datenbank: {uid()}")

    k = "mac_address"
    B(k, f"new tower switch MAC {':'.join(HX(2) for _ in range(6))} → add to DHCP reservation")
    B(k, f"MAC-Adresse Lidar-Modem: {'-'.join(HX(2) for _ in range(6))}")

    k = "ip_address"
    B(k, f"SCADA historian lives on 10.40.{rng.randint(1, 254)}.{rng.randint(1, 254)}, port 5432")
    B(k, f"IP do logger da torre: 172.16.{rng.randint(1, 254)}.{rng.randint(1, 254)}")
    B(k, f"Gateway OSS Baltic: 10.{rng.randint(1, 254)}.0.1/24")

    k = "cert_thumbprint"
    B(k, f"OPC UA server cert thumbprint: {HX(40)}")
    B(k, f"Zertifikat-Fingerprint (SHA1) des Netzportals: {':'.join(HX(2) for _ in range(20))}")
    B(k, f"Thumbprint for the trading API client cert is {HX(40)}, expires 2027-04-01")

    k = "pgp_fingerprint"
    B(k, f"PGP key fingerprint of the SOC: {' '.join(HX(4) for _ in range(10))}")
    B(k, f"bitte Logs verschlüsseln an Key-ID 0x{HX(16)}")

    k = "twilio_account_sid"
    B(k, f"Twilio Account SID AC{hx(32)} (just the SID; token is in Vault)")
    B(k, f"Messaging Service SID MG{hx(32)} für die Bereitschafts-SMS")
    B(k, f"Twilio phone number SID PN{hx(32)}")

    k = "analytics_id"
    B(k, f"GA4 measurement id for the visitor centre site: G-{up(10)}")
    B(k, f"Sentry project id {dg(7)}, org windco")
    B(k, f"Google Tag Manager GTM-{up(7)} no site do parque")

    k = "firmware_version"
    B(k, f"controller firmware upgraded to 4.12.{dg(3)}-r{dg(2)} on all B-string turbines")
    B(k, f"Lidar-Firmware v{dg(1)}.{dg(2)}.{dg(4)} behebt den GPS-Bug")
    B(k, f"versão do firmware do logger: OS {dg(2)}.0{dg(1)}")

    k = "cve_id"
    B(k, f"CVE-2024-{dg(5)} affects the HMI web server, patch scheduled")
    B(k, f"Siemens Advisory SSA-{dg(6)} betrifft unsere S7-1500 nicht")
    B(k, f"ICSA-24-{dg(3)}-{dg(2)} – verificar se o RTU é afetado")

    k = "blade_serial"
    B(k, f"Blade B serial {up(3)}-{dg(6)} shows leading edge erosion cat 3")
    B(k, f"Rotorblatt A, SN {dg(8)}, Blitzschaden an der Spitze")
    B(k, f"vinge C (serienr. LM{dg(7)}) – revne ved roden, foto i rapporten")

    k = "booking_reference"
    B(k, f"Hotel Esbjerg booking ref {up(6)} for the blade team")
    B(k, f"Flug nach Natal, Buchungscode {up(6)}")
    B(k, f"reserva do helicóptero confirmada, localizador {up(6)}")
    B(k, f"Færgebillet bekræftelse nr. {dg(9)}")

    k = "product_code"
    B(k, f"order 4x EAN {dg(13)} (hydraulic oil filter)")
    B(k, f"Produktcode HYD-FLT-{dg(4)} ist abgekündigt, Nachfolger HYD-FLT-{dg(4)}")
    B(k, f"código do produto SKF {up(3)}{dg(5)} – rolamento do gerador")

    k = "badge_number"
    B(k, f"new contractor badge no. {dg(6)} issued to M. Silva, valid until Friday")
    B(k, f"Ausweisnummer {dg(8)} gesperrt (verloren gemeldet)")
    B(k, f"adgangskort nr. {dg(5)} skal have adgang til kontrolrummet")

    k = "phone_extension"
    B(k, f"Control room hotline ext. {dg(4)}, out of hours +45 {dg(2)} {dg(2)} {dg(2)} {dg(2)}")
    B(k, f"Leitwarte Durchwahl -{dg(3)}")
    B(k, f"ramal do COS: {dg(4)}")

    k = "key_cabinet_slot"
    B(k, f"HV room key is in key cabinet slot {dg(2)}, sign the log")
    B(k, f"Schlüsselschrank Fach {dg(2)}: Fahrzeugschlüssel Transporter HU-WC {dg(3)}")
    B(k, f"nøgleskab plads {dg(2)} – bil nr. {dg(2)}")

    k = "notam_id"
    B(k, f"NOTAM A{dg(4)}/26 – crane obstacle near WTG-A01, lit at night")
    B(k, f"Drohnenflug angemeldet, Genehmigung Nr. {dg(4)}-{dg(2)}")

    k = "gps_coordinates"
    B(k, f"WTG-C07 position 55.{dg(5)}N 7.{dg(5)}E, depth 18 m")
    B(k, f"coordenadas da torre TA-3: -5.{dg(5)}, -35.{dg(5)}")
    B(k, f"Treffpunkt CTV: 54°{dg(2)}'{dg(2)}\"N 7°{dg(2)}'{dg(2)}\"E")

    k = "trade_order_id"
    B(k, f"EPEX intraday order id {dg(10)} filled at 42.10 EUR/MWh")
    B(k, f"Nord Pool bid ID {uid()} accepted for hour 14")
    B(k, f"Trade-ID {dg(12)} storniert wegen Prognosefehler")

    k = "correlation_id"
    B(k, f"trace id {hx(32)} – slow query on turbine_history")
    B(k, f"X-Correlation-ID: {uid()}")
    B(k, f"span {hx(16)} errored with ECONNRESET")

    k = "oauth_client_id"
    B(k, f"client_id for the trading API app registration: {uid()} (secret not here)")
    B(
        k,
        f"OAuth Client-ID der Inspektions-App: {dg(12)}-{an(32).lower()}.apps.googleusercontent.com",
    )
    B(k, f"GitHub App ID {dg(6)}, client id Iv1.{hx(16)}")

    k = "fire_alarm_zone"
    B(k, f"fire panel: detector zone {dg(2)} (converter room) in fault, not alarm")
    B(k, f"Brandmeldezentrale Meldergruppe {dg(2)}/{dg(1)} ausgelöst – Fehlalarm, Staub")
    B(k, f"Brandcentral sløjfe {dg(1)}, adresse {dg(3)} — udskiftes")

    k = "lot_number"
    B(k, f"grease batch LOT {dg(8)}, expiry 2028-06")
    B(k, f"Charge {up(2)}{dg(6)} der Schrauben laut Prüfzeugnis 3.1")
    B(k, f"lote {dg(7)} da resina de reparo de pá")

    k = "kms_key_arn"
    B(k, f"bucket encrypted with arn:aws:kms:eu-central-1:{dg(12)}:key/{uid()}")
    B(k, f"KMS key alias alias/scada-backups, key id {uid()}")
    B(k, f"Azure Key Vault key URI: https://kv-ot-prod.vault.azure.net/keys/plc-backup/{hx(32)}")

    k = "test_card_number"
    B(k, "use 4242 4242 4242 4242, any CVC, for the ticket shop staging checkout")
    B(k, "Stripe Testkarte 4000 0025 0000 3155 für 3-D-Secure-Test")

    k = "azure_tenant_id"
    B(k, f"Azure tenant id {uid()}, subscription {uid()} (OT-prod)")
    B(k, f"Entra ID Tenant: {uid()} – für die SSO-Konfig des Netzportals")
    B(k, f"ID do diretório (tenant) do Azure: {uid()}")

    # ------------------------------------------------------------------ more rows, mixed
    S(
        "door_access_code",
        f"neuer Code Drehkreuz Hafen Mukran ab 1.12.: {dg(4)}* – alter Code gilt nicht mehr",
    )
    S(
        "alarm_code",
        f"Intrusion alarm panel at the met mast container: user code {dg(4)}, master {dg(6)}",
    )
    S("key_safe_code", f"Schlüsselbox am Umspannwerk Tor 2\nCode: {dg(4)}")
    S("vessel_wifi_key", f"| CTV | SSID | Key |\n| Njord Forseti | FORSETI-CREW | {pw()} |")
    S(
        "postgres_connection_string",
        f"jdbc:postgresql://pg-trade:5432/positions?user=trader&password={pw()}",
    )
    S(
        "scada_admin_password",
        f"@agent remember: Enercon SCADA (PDI) login für Park Holtriem ist windco/{pw()}",
    )
    S(
        "warehouse_gate_code",
        f"Gate Lager Süd: {dg(4)}. Driver must call control room before entering.",
    )
    S(
        "grid_portal_password",
        f"Login Netzbetreiber-Portal (Avacon) für Abschaltungen:\nBenutzer: wp-holtriem\nPasswort: {pw()}",
    )
    S("helicopter_portal_password", f"senha do portal de voos (offshore BR, piloto): {pw()}")
    S("plc_password", f"PLC-kode til kranen på platformen: {dg(6)}")
    B("scada_alarm_code", f"| WTG | Alarm | Text |\n| B07 | {dg(4)} | Hydraulic pressure low |")
    B("work_order_number", f"WO#{dg(6)} – blade inspection by drone, Abnahme durch Dirk")
    B("ticket_id", f"GitHub issue #{dg(3)}: exporter crashes when turbine is in maintenance mode")
    B("masked_secret", f"ENTSO-E token: {hx(8)}-****-****-****-************ (gekürzt)")
    B(
        "vault_reference",
        "wifi key for the SOV → ask the bridge, it is on the laminated card, not in here",
    )
    B(
        "placeholder_password",
        "Kombination Tresor: 00-00-00 ist nur der Werkszustand, wurde geändert – neuer Code beim Schichtleiter",
    )
    B(
        "password_policy",
        "Agent note: door codes, PINs and Wi-Fi keys are never stored in memories; link the Bitwarden item instead",
    )
    B("revoked_token", f"Datadog key ending {hx(4)} rotated + revoked on 2026-11-30, nothing to do")
    B(
        "documented_example_key",
        "Slack docs sample: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    )
    B(
        "env_var_reference",
        "export AWS_SECRET_ACCESS_KEY=$(vault kv get -field=secret ot/aws/forecast)",
    )
    B("git_commit_sha", f"Merge-Request !{dg(3)} rebased onto {hx(12)}")
    B("sap_material_number", f"material {dg(8)} (Blitzschutz-Rezeptor) – estoque zero em Natal")
    B("product_code", f"Anemometer Thies First Class, Typ 4.3351.{dg(2)}.000")
    B("booking_reference", f"Transfer boat slot confirmed, ref. CTV-{dg(4)}-{up(2)}")
    B("plc_error_code", f"Umrichter meldet F{dg(4)}, laut Handbuch Netzunterspannung")
    B("badge_number", f"Visitor badge V-{dg(4)} returned at reception")
    B("mac_address", f"gateway da torre TA-1 trocado, novo MAC {':'.join(hx(2) for _ in range(6))}")
    B(
        "pgp_fingerprint",
        f"age public key for backups: age1{pick('qpzry9x8gf2tvdw0s3jn54khce6mua7l', 58)}",
    )
    B(
        "stripe_publishable_key",
        f"Visitor shop: pk_live_{an(24)} in the checkout.js bundle is expected",
    )
    B("lot_number", f"Ölprobe Lot {dg(6)}, Labor-Nr. L-{dg(5)}")

    return rows


def main():
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
