"""Blind secret-detector corpus 43: web3, crypto-exchange and trading-bot developers.

Brief: wallet seed phrases and private keys in many encodings, keystore passwords, RPC and
node-provider keys, exchange API key/secret pairs and passphrases, signing services, validator
keys, bot configs, block-explorer and indexer keys, testnet faucets, multisig setups, and the many
public look-alikes of this field (addresses, transaction hashes, public keys, contract ABIs, ENS
names).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Every value is generated from random.Random(SEED); no real credential appears anywhere. The few
fixed benign values are publicly documented non-secrets (the BIP39 all-"abandon" test vector, the
hardhat/anvil default mnemonic and account #0 key, Etherscan's "YourApiKeyToken" doc placeholder,
the CoinMarketCap sandbox key, the EIP-1967 implementation slot).

Run:
    python benchmarks/data/blind_secrets/blind_secrets_43.py /tmp/blind43.jsonl
(writes JSONL rows {label, kind, text, value}; stdout without an argument).

Secret kinds:
    alchemy_rpc_key, alchemy_webhook_signing_key, ankr_premium_key, aws_secret_for_kms_signer,
    binance_api_secret, binance_testnet_secret, bip32_xprv, bip39_mnemonic_12,
    bip39_mnemonic_24, bitcoin_wif, bitcoind_rpc_password, blocknative_key, bybit_api_secret,
    cast_private_key_flag, chainlink_node_api_password, coinbase_cdp_private_key,
    coingecko_pro_key, coinmarketcap_key, cosmos_keyring_passphrase, covalent_key,
    discord_webhook, dydx_mnemonic, engine_api_jwt_secret, eth_private_key_0x,
    eth_private_key_bare_hex, etherscan_api_key, faucet_wallet_private_key,
    fireblocks_api_private_key, flashbots_auth_key, gemini_api_secret, github_pat_bot_repo,
    graph_deploy_key, hardhat_accounts_private_key, helius_rpc_key, hyperliquid_api_wallet_key,
    indexer_postgres_dsn, infura_api_secret, infura_rpc_url_key, keystore_password,
    kraken_private_key, kucoin_passphrase, kucoin_secret, lnd_admin_macaroon,
    metamask_vault_password, moralis_api_key, nostr_nsec, okx_passphrase, okx_secret,
    oneinch_api_key, pinata_jwt, polygonscan_bscscan_key, quicknode_endpoint,
    safe_owner_private_key, solana_keypair_json, solana_secret_key_base58,
    substrate_secret_seed, telegram_bot_token, tenderly_access_key, thegraph_api_key,
    trezor_passphrase, validator_keystore_password, validator_mnemonic, web3signer_auth_token,
    zeroex_api_key

Benign kinds:
    abi_json_snippet, api_permissions_note, binary_sha256, bip39_test_vector, block_hash,
    bls_validator_pubkey, bot_config_no_secrets, btc_bech32_address, btc_legacy_address,
    btc_txid, chainlink_job_id, cmc_sandbox_key, coinbase_key_name, contract_abi_fragment,
    cosmos_address, deposit_data_root, derivation_path, docker_digest, domain_separator,
    eip1967_impl_slot, enode_url, ens_name, env_var_reference, erc20_calldata, eth_address,
    etherscan_doc_placeholder, event_topic0, exchange_key_suffix_revoked, faucet_info,
    function_selector, gas_and_nonce, git_commit_sha, hardhat_default_account_key,
    hardhat_default_mnemonic, infura_url_placeholder, init_code_hash, ipfs_cid,
    key_talk_no_value, keystore_filename, keystore_uuid_and_salt, libp2p_peer_id,
    lightning_invoice, merkle_root, mnemonic_placeholder, nostr_npub, pgp_fingerprint,
    private_key_placeholder, public_rpc_no_key, redacted_exchange_secret, redacted_private_key,
    request_id_hex, revoked_infura_key, safe_multisig_setup, secp256k1_pubkey_compressed,
    secp256k1_pubkey_uncompressed, secret_sense_protocol, secrets_mount_path, signature_public,
    solana_pubkey, solana_tx_signature, storage_slot_value, subgraph_deployment_id,
    token_contract_address, token_sense_erc20, tx_hash_64hex, validator_index_and_slot,
    vault_reference, walletconnect_project_id_public, withdrawal_credentials, xpub, zpub
"""

# ruff: noqa: E501
import base64
import json
import random
import string
import sys
import uuid

SEED = 4343

_WORDLIST = """
abandon ability able about above absent absorb abstract absurd abuse access accident account
accuse achieve acid acoustic acquire across act action actor actress actual adapt add addict
address adjust admit adult advance advice aerobic affair afford afraid again age agent agree
ahead aim air airport aisle alarm album alcohol alert alien all alley allow almost alone alpha
already also alter always amateur amazing among amount amused analyst anchor ancient anger angle
angry animal ankle announce annual another answer antenna antique anxiety any apart apology
appear apple approve april arch arctic area arena argue arm armed armor army around arrange
arrest arrive arrow art artefact artist artwork ask aspect assault asset assist assume asthma
athlete atom attack attend attitude attract auction audit august aunt author auto autumn average
avocado avoid awake aware away awesome awful awkward axis baby bachelor bacon badge bag balance
balcony ball bamboo banana banner bar barely bargain barrel base basic basket battle beach bean
beauty because become beef before begin behave behind believe below belt bench benefit best
betray better between beyond bicycle bid bike bind biology bird birth bitter black blade blame
blanket blast bleak bless blind blood blossom blouse blue blur blush board boat body boil bomb
bone bonus book boost border boring borrow boss bottom bounce box boy bracket brain brand brass
brave bread breeze brick bridge brief bright bring brisk broccoli broken bronze broom brother
brown brush bubble buddy budget buffalo build bulb bulk bullet bundle bunker burden burger burst
bus business busy butter buyer buzz cabbage cabin cable cactus cage cake call calm camera camp
can canal cancel candy cannon canoe canvas canyon capable capital captain car carbon card cargo
carpet carry cart case cash casino castle casual cat catalog catch category cattle caught cause
caution cave ceiling celery cement census century cereal certain chair chalk champion change
chaos chapter charge chase chat cheap check cheese chef cherry chest chicken chief child chimney
choice choose chronic chuckle chunk churn cigar cinnamon circle citizen city civil claim clap
clarify claw clay clean clerk clever click client cliff climb clinic clip clock clog close cloth
cloud clown club clump cluster clutch coach coast coconut code coffee coil coin collect color
column combine come comfort comic common company concert conduct confirm congress connect
consider control convince cook cool copper copy coral core corn correct cost cotton couch
country couple course cousin cover coyote crack cradle craft cram crane crash crater crawl crazy
cream credit creek crew cricket crime crisp critic crop cross crouch crowd crucial cruel cruise
crumble crunch crush cry crystal cube culture cup cupboard curious current curtain curve cushion
custom cute cycle dad damage damp dance danger daring dash daughter dawn day deal debate debris
decade december decide decline decorate decrease deer defense define defy degree delay deliver
demand zebra zero zone zoo wolf woman wonder wood wool word work world worry worth wrap wreck
wrestle wrist write wrong yard year yellow you young youth
"""
WORDS = _WORDLIST.split()

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
AN = string.ascii_letters + string.digits


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def pick(s, n):
        return "".join(r.choice(s) for _ in range(n))

    def hx(n):
        return pick("0123456789abcdef", n)

    def b58(n):
        return pick(B58, n)

    def an(n):
        return pick(AN, n)

    def up(n):
        return pick(string.ascii_uppercase + string.digits, n)

    def b64(nbytes):
        return base64.b64encode(r.randbytes(nbytes)).decode()

    def b64u(nbytes):
        return base64.urlsafe_b64encode(r.randbytes(nbytes)).decode().rstrip("=")

    def uid():
        return str(uuid.UUID(int=r.getrandbits(128), version=4))

    def digits(n):
        return str(r.randint(1, 9)) + pick(string.digits, n - 1)

    def mnem(n):
        return " ".join(r.choice(WORDS) for _ in range(n))

    def addr():
        return "0x" + "".join(c.upper() if r.random() < 0.5 else c for c in hx(40))

    def pw():
        w = r.choice(WORDS).capitalize()
        return (
            w + r.choice("!#%&*-_.@") + digits(r.randint(3, 5)) + r.choice(WORDS) + r.choice("!?$^")
        )

    def jwt():
        h = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
        p = json.dumps({"sub": uid(), "iat": r.randint(1700000000, 1760000000)}).encode()
        return h + "." + base64.urlsafe_b64encode(p).decode().rstrip("=") + "." + b64u(32)

    def ed_pem():
        body = base64.b64encode(
            bytes.fromhex("302e020100300506032b657004220420") + r.randbytes(32)
        ).decode()
        return "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----"

    def ec_pem():
        der = (
            bytes.fromhex("30770201010420")
            + r.randbytes(32)
            + bytes.fromhex("a00a06082a8648ce3d030107a144034200")
            + r.randbytes(65)
        )
        b = base64.b64encode(der).decode()
        lines = "\n".join(b[i : i + 64] for i in range(0, len(b), 64))
        return "-----BEGIN EC PRIVATE KEY-----\n" + lines + "\n-----END EC PRIVATE KEY-----"

    def wif():
        return (
            r.choice(["5H", "5J", "5K"]) + b58(49) if r.random() < 0.3 else r.choice("KL") + b58(51)
        )

    def node_sub():
        return "-".join(r.choice(WORDS) for _ in range(3))

    # each kind: (kind, value generator, templates). Templates may use {v} (the value), {k} (a
    # companion non-secret id), {a} (an address), {n} (a number).
    S = [
        (
            "bip39_mnemonic_12",
            lambda: mnem(12),
            [
                "hot wallet for the arb bot (acct 0)\nseed: {v}\ndon't lose this, no backup yet",
                'Restored the deployer wallet from its recovery phrase: "{v}" -> {a}',
                'MNEMONIC="{v}"\n# used by scripts/deploy.ts on sepolia + mainnet',
            ],
        ),
        (
            "bip39_mnemonic_24",
            lambda: mnem(24),
            [
                "Treasury cold wallet 24 words (wrote down 2024-03, copying here so the agent can derive addresses):\n{v}",
                "ledger recovery sheet transcribed:\n{v}\npassphrase: none",
                "seed_phrase: |\n  {v}\nderivation: m/44'/60'/0'/0/x",
            ],
        ),
        (
            "eth_private_key_0x",
            lambda: "0x" + hx(64),
            [
                "DEPLOYER_PRIVATE_KEY={v}",
                "bot signer (address {a}) privkey {v} - funded with 0.4 ETH for gas",
                "The liquidation keeper signs with {v}; rotate it after the audit.",
            ],
        ),
        (
            "eth_private_key_bare_hex",
            lambda: hx(64),
            [
                "PRIVATE_KEY={v}\nRPC_URL=https://mainnet.base.org",
                "exported key from MetaMask for account 3: {v}",
                "pk (no 0x prefix, ethers wants it that way here): {v}",
            ],
        ),
        (
            "hardhat_accounts_private_key",
            lambda: "0x" + hx(64),
            [
                'hardhat.config.ts networks.arbitrum:\n  url: process.env.ARB_RPC,\n  accounts: ["{v}"]',
                'foundry.toml had `private_key = "{v}"` under [profile.prod] - move to keystore',
                "networks: {{ polygon: {{ url: POLY_RPC, accounts: ['{v}'], chainId: 137 }} }}",
            ],
        ),
        (
            "cast_private_key_flag",
            lambda: "0x" + hx(64),
            [
                "cast send {a} 'setFee(uint256)' 30 --rpc-url $RPC --private-key {v}",
                "forge script script/Deploy.s.sol --broadcast --private-key {v} --verify",
                "ran: cast wallet address --private-key {v}\n-> {a}",
            ],
        ),
        (
            "solana_secret_key_base58",
            lambda: b58(88),
            [
                "Phantom export for the sniper wallet: {v}",
                "SOLANA_PRIVATE_KEY={v}\nJITO_TIP_LAMPORTS=10000",
                "jupiter swap bot keypair (base58 secret): {v} - pubkey is in the notes below",
            ],
        ),
        (
            "solana_keypair_json",
            lambda: "[" + ",".join(str(r.randint(0, 255)) for _ in range(64)) + "]",
            [
                "~/.config/solana/id.json contents:\n{v}",
                "mint authority keypair for the devnet->mainnet token, paste into keypair.json: {v}",
                "anchor deploy wallet = {v}",
            ],
        ),
        (
            "bitcoin_wif",
            wif,
            [
                "paper wallet WIF: {v} (sweep into the exchange hot wallet when price > 70k)",
                'bitcoin-cli importprivkey {v} "cold-2019" false',
                "BTC_SIGNER_WIF={v}",
            ],
        ),
        (
            "bip32_xprv",
            lambda: "xprv9" + b58(106),
            [
                "account xprv for the payout service: {v}",
                "electrum wallet master private key\n{v}",
                "HD_ROOT={v}\n# derive m/84'/0'/0' children from this",
            ],
        ),
        (
            "keystore_password",
            pw,
            [
                "geth account unlock uses password file pw.txt, content: {v}",
                "Keystore UTC--2023-11-02T10-14-55Z--{k} decrypts with passphrase {v}",
                "clef master password = {v}",
            ],
        ),
        (
            "validator_keystore_password",
            pw,
            [
                "Lighthouse validator import: all 16 keystores share the password `{v}`",
                "validator_keys/ password (deposit-cli, set on 2024-05-01): {v}",
                "teku --validator-keys=/keys:/pass ; /pass/keystore-m_12381_3600_0_0_0.txt = {v}",
            ],
        ),
        (
            "validator_mnemonic",
            lambda: mnem(24),
            [
                "staking-deposit-cli generated mnemonic for validators 0-31:\n{v}",
                "withdrawal key mnemonic (eth2, needed for BLS->0x01 change): {v}",
                "./deposit existing-mnemonic --validator_start_index 32\nmnemonic used: {v}",
            ],
        ),
        (
            "engine_api_jwt_secret",
            lambda: "0x" + hx(64),
            [
                "jwt.hex shared by nethermind and prysm on box val-02: {v}",
                "--authrpc.jwtsecret points at /secrets/jwt.hex which contains {v}",
                "engine api JWT secret (execution<->consensus): {v}",
            ],
        ),
        (
            "infura_rpc_url_key",
            lambda: hx(32),
            [
                "ETH_RPC=https://mainnet.infura.io/v3/{v}",
                "wss://polygon-mainnet.infura.io/ws/v3/{v} is what the mempool watcher subscribes on",
                "Using infura endpoint https://sepolia.infura.io/v3/{v} for the faucet relayer",
            ],
        ),
        (
            "infura_api_secret",
            lambda: hx(32),
            [
                "Infura project {k}\nAPI key secret: {v}\n(require secret is ON for the project)",
                "INFURA_PROJECT_SECRET={v}",
                "curl --user :{v} https://mainnet.infura.io/v3/{k}",
            ],
        ),
        (
            "alchemy_rpc_key",
            lambda: an(32),
            [
                "ALCHEMY_URL=https://eth-mainnet.g.alchemy.com/v2/{v}",
                "arb rpc: https://arb-mainnet.g.alchemy.com/v2/{v} (growth plan, 400 CU/s)",
                "alchemy api key for the indexer: {v}",
            ],
        ),
        (
            "alchemy_webhook_signing_key",
            lambda: "whsec_" + an(24),
            [
                "Alchemy Notify address-activity webhook signing key: {v}",
                "ALCHEMY_WEBHOOK_SIGNING_KEY={v}  # verify x-alchemy-signature",
                "webhook wh_{k} -> signing key {v}",
            ],
        ),
        (
            "quicknode_endpoint",
            lambda: "https://" + node_sub() + ".quiknode.pro/" + hx(40) + "/",
            [
                "solana rpc for the sniper: {v}",
                "QUICKNODE_HTTP={v}",
                "Switched the BSC node to QuickNode: {v} (token in path, no header auth)",
            ],
        ),
        (
            "helius_rpc_key",
            uid,
            [
                "SOLANA_RPC=https://mainnet.helius-rpc.com/?api-key={v}",
                "helius key {v} - webhooks + DAS api",
                "const conn = new Connection('https://devnet.helius-rpc.com/?api-key={v}')",
            ],
        ),
        (
            "ankr_premium_key",
            lambda: hx(64),
            [
                "Ankr premium: https://rpc.ankr.com/eth/{v}",
                "ANKR_API_KEY={v}",
                "multichain rpc via ankr, token {v}, 30 req/s",
            ],
        ),
        (
            "binance_api_secret",
            lambda: an(64),
            [
                "binance spot bot\nBINANCE_API_KEY={k}\nBINANCE_API_SECRET={v}",
                "Binance key {k} / secret {v} (trade enabled, withdrawals off, IP whitelist 3.120.x)",
                "ccxt.binance({{'apiKey': '{k}', 'secret': '{v}'}})",
            ],
        ),
        (
            "binance_testnet_secret",
            lambda: an(64),
            [
                "testnet.binance.vision keys for CI backtests: key={k} secret={v}",
                "BINANCE_TESTNET_SECRET={v}",
                "futures testnet secret {v} (key {k})",
            ],
        ),
        (
            "kraken_private_key",
            lambda: b64(64),
            [
                "KRAKEN_API_KEY={k}\nKRAKEN_PRIVATE_KEY={v}",
                "kraken api private key (base64): {v}",
                "Kraken grid bot creds -> key {k}, private {v}",
            ],
        ),
        (
            "okx_passphrase",
            pw,
            [
                "OKX api: key {k}, passphrase {v} (secret in the next note)",
                "OKX_PASSPHRASE={v}",
                "okx sub-account 'mm-1' api passphrase is {v}",
            ],
        ),
        (
            "okx_secret",
            lambda: up(32),
            [
                "OKX_SECRET_KEY={v}\nOKX_API_KEY={k}",
                "okx secret key for sub-account mm-1: {v}",
                "ok-access-sign is HMAC with secret {v}",
            ],
        ),
        (
            "bybit_api_secret",
            lambda: an(36),
            [
                "bybit unified acct api: key={k} secret={v}",
                "BYBIT_API_SECRET={v}",
                "Bybit perp bot secret {v} - expires in 90 days unless IP bound",
            ],
        ),
        (
            "kucoin_passphrase",
            pw,
            [
                "KUCOIN_API_PASSPHRASE={v}",
                "kucoin api v2: key {k}, passphrase {v}",
                "the kucoin passphrase I chose when creating the API key: {v}",
            ],
        ),
        (
            "kucoin_secret",
            uid,
            [
                "KUCOIN_API_SECRET={v}\nKUCOIN_API_KEY={k}",
                "kucoin secret {v}",
                "kucoin: apiKey {k} apiSecret {v} apiPassphrase in vault",
            ],
        ),
        (
            "coinbase_cdp_private_key",
            ec_pem,
            [
                "Coinbase Advanced Trade key organizations/{k}/apiKeys/{k2}\n{v}",
                'CDP_API_KEY_SECRET="{v}"',
                "coinbase api privateKey:\n{v}",
            ],
        ),
        (
            "gemini_api_secret",
            lambda: an(28),
            [
                "gemini master key account-{k}, secret {v}",
                "GEMINI_API_SECRET={v}",
                "gemini sandbox is fine but PROD secret is {v}",
            ],
        ),
        (
            "hyperliquid_api_wallet_key",
            lambda: "0x" + hx(64),
            [
                "Hyperliquid API wallet (agent) private key: {v} - approved for master {a}",
                "HL_SECRET_KEY={v}",
                'hyperliquid-python-sdk config.json: {{"secret_key": "{v}", "account_address": "{a}"}}',
            ],
        ),
        (
            "dydx_mnemonic",
            lambda: mnem(24),
            [
                "dYdX v4 chain wallet secret phrase: {v}",
                'DYDX_MNEMONIC="{v}"',
                "v4 trading key (cosmos-style mnemonic) for the mm bot: {v}",
            ],
        ),
        (
            "etherscan_api_key",
            lambda: up(34),
            [
                "ETHERSCAN_API_KEY={v}",
                "forge verify-contract --etherscan-api-key {v} {a} src/Vault.sol:Vault",
                "etherscan key for the indexer backfill: {v} (5 calls/s)",
            ],
        ),
        (
            "polygonscan_bscscan_key",
            lambda: up(34),
            [
                "POLYGONSCAN_API_KEY={v}",
                "bscscan api key {v} used by the token tracker",
                "etherscan: {{ apiKey: {{ polygon: '{v}' }} }}",
            ],
        ),
        (
            "thegraph_api_key",
            lambda: hx(32),
            [
                "https://gateway.thegraph.com/api/{v}/subgraphs/id/{k}",
                "GRAPH_API_KEY={v}",
                "graph studio query key {v} (billing on arbitrum)",
            ],
        ),
        (
            "graph_deploy_key",
            lambda: hx(32),
            [
                "graph auth --studio {v}",
                "subgraph deploy key: {v}",
                "GRAPH_DEPLOY_KEY={v} for CI `graph deploy --studio uni-v3-fork`",
            ],
        ),
        (
            "moralis_api_key",
            jwt,
            [
                "MORALIS_API_KEY={v}",
                "moralis key for NFT indexing: {v}",
                "headers: {{ 'X-API-Key': '{v}' }}",
            ],
        ),
        (
            "pinata_jwt",
            jwt,
            [
                "PINATA_JWT={v}",
                "pinning metadata: Authorization: Bearer {v}",
                "pinata scoped key JWT (pinFileToIPFS only): {v}",
            ],
        ),
        (
            "coingecko_pro_key",
            lambda: "CG-" + an(24),
            [
                "COINGECKO_API_KEY={v}",
                "x-cg-pro-api-key: {v}",
                "coingecko analyst plan key {v}",
            ],
        ),
        (
            "coinmarketcap_key",
            uid,
            [
                "CMC_PRO_API_KEY={v}",
                "X-CMC_PRO_API_KEY: {v}",
                "coinmarketcap prod key {v} (basic plan, 10k credits)",
            ],
        ),
        (
            "zeroex_api_key",
            uid,
            [
                "0x-api-key: {v}",
                "ZEROEX_API_KEY={v}",
                "swap api key from 0x dashboard: {v}",
            ],
        ),
        (
            "oneinch_api_key",
            lambda: an(32),
            [
                "ONEINCH_API_KEY={v}",
                "Authorization: Bearer {v}  (1inch dev portal, aggregation v6)",
                "1inch key {v}",
            ],
        ),
        (
            "tenderly_access_key",
            lambda: an(32),
            [
                "TENDERLY_ACCESS_KEY={v}",
                "X-Access-Key: {v} for simulate-bundle",
                "tenderly: account acme, project bots, access key {v}",
            ],
        ),
        (
            "blocknative_key",
            uid,
            [
                "BLOCKNATIVE_DAPP_ID={v}\n# mempool explorer, paid tier",
                "blocknative api key {v}",
                "gas platform header Authorization: {v}",
            ],
        ),
        (
            "covalent_key",
            lambda: "cqt_" + an(28),
            [
                "COVALENT_API_KEY={v}",
                "goldrush / covalent key {v}",
                "https://api.covalenthq.com/v1/eth-mainnet/address/{a}/balances_v2/?key={v}",
            ],
        ),
        (
            "telegram_bot_token",
            lambda: digits(10) + ":AA" + pick(AN + "_-", 33),
            [
                "TELEGRAM_BOT_TOKEN={v}\nTELEGRAM_CHAT_ID=-100{n}",
                "alerts go through bot @arb_alerts_bot token {v}",
                "https://api.telegram.org/bot{v}/sendMessage?chat_id=-100{n}",
            ],
        ),
        (
            "discord_webhook",
            lambda: "https://discord.com/api/webhooks/" + digits(19) + "/" + pick(AN + "_-", 68),
            [
                "DISCORD_WEBHOOK_URL={v}",
                "liquidation alerts -> {v}",
                "fill notifications webhook: {v}",
            ],
        ),
        (
            "flashbots_auth_key",
            lambda: "0x" + hx(64),
            [
                "FLASHBOTS_AUTH_KEY={v}  # reputation key, not the searcher wallet",
                "flashbots signer (X-Flashbots-Signature identity): {v}",
                "mev-share auth signer pk {v}",
            ],
        ),
        (
            "safe_owner_private_key",
            lambda: "0x" + hx(64),
            [
                "Safe {a} owner #2 (2-of-3) signing key: {v}",
                "multisig co-signer bot key {v} - it auto-confirms payroll txs",
                "SAFE_PROPOSER_PK={v}",
            ],
        ),
        (
            "fireblocks_api_private_key",
            ed_pem,
            [
                "fireblocks api user {k} secret key:\n{v}",
                'FIREBLOCKS_SECRET="{v}"',
                "fireblocks_secret.key\n{v}",
            ],
        ),
        (
            "web3signer_auth_token",
            lambda: b64u(32),
            [
                "web3signer behind nginx, bearer token {v}",
                "REMOTE_SIGNER_TOKEN={v}",
                "vouch -> dirk? no, vouch -> web3signer with Authorization: Bearer {v}",
            ],
        ),
        (
            "nostr_nsec",
            lambda: "nsec1" + pick(BECH, 58),
            [
                "nostr account for the bot: {v}",
                "NOSTR_PRIVATE_KEY={v}",
                "zap relay signer nsec {v}",
            ],
        ),
        (
            "lnd_admin_macaroon",
            lambda: "0201036c6e6402f801" + hx(280),
            [
                "LND_MACAROON_HEX={v}",
                "admin.macaroon (hex) for the node: {v}",
                "grpc-metadata-macaroon: {v}",
            ],
        ),
        (
            "bitcoind_rpc_password",
            pw,
            [
                "bitcoin.conf\nrpcuser=btcrpc\nrpcpassword={v}",
                "bitcoind rpc creds: btcrpc / {v}",
                'curl --user btcrpc:{v} --data-binary \'{{"method":"getblockcount"}}\' http://127.0.0.1:8332/',
            ],
        ),
        (
            "chainlink_node_api_password",
            pw,
            [
                "chainlink .api file:\nops@oracle.example\n{v}",
                "CL node UI login ops@oracle.example pw {v}",
                "chainlink keystore password (.password): {v}",
            ],
        ),
        (
            "indexer_postgres_dsn",
            pw,
            [
                "DATABASE_URL=postgres://ponder:{v}@10.0.3.7:5432/indexer",
                "graph-node postgres user graph / {v}",
                "subsquid db: postgresql://squid:{v}@db.internal/squid",
            ],
        ),
        (
            "substrate_secret_seed",
            lambda: "0x" + hx(64),
            [
                "subkey inspect output -> Secret seed: {v}",
                "polkadot validator stash secret seed {v}",
                "SUBSTRATE_SURI={v}",
            ],
        ),
        (
            "cosmos_keyring_passphrase",
            pw,
            [
                "gaiad keys add relayer --keyring-backend file ; passphrase {v}",
                "hermes relayer keyring password {v}",
                "osmosis validator keyring file passphrase: {v}",
            ],
        ),
        (
            "trezor_passphrase",
            pw,
            [
                "trezor hidden wallet 25th word: {v}",
                "BIP39 passphrase for the hidden treasury wallet = {v}",
                "ledger 'attach to PIN' passphrase is {v}",
            ],
        ),
        (
            "faucet_wallet_private_key",
            lambda: "0x" + hx(64),
            [
                "sepolia faucet hot wallet key {v} (drips 0.05 ETH, holds ~40 ETH)",
                "FAUCET_PRIVATE_KEY={v}",
                "holesky faucet signer pk: {v}",
            ],
        ),
        (
            "aws_secret_for_kms_signer",
            lambda: pick(AN + "+/", 40),
            [
                "KMS signer IAM user: AKIA{k}\nsecret {v}",
                "AWS_SECRET_ACCESS_KEY={v}",
                "aws-kms-ethers-signer creds: key id AKIA{k} secret {v}",
            ],
        ),
        (
            "github_pat_bot_repo",
            lambda: "ghp_" + an(36),
            [
                "GH token for the bot config repo: {v}",
                "git clone https://{v}@github.com/acme/mm-configs.git",
                "GITHUB_TOKEN={v}",
            ],
        ),
        (
            "metamask_vault_password",
            pw,
            [
                "metamask on the ops laptop unlocks with {v}",
                "rabby wallet password: {v}",
                "browser wallet (MetaMask, profile 'deployer') password = {v}",
            ],
        ),
    ]
    KGEN = {
        "keystore_password": lambda: hx(40),
        "infura_api_secret": lambda: hx(32),
        "binance_api_secret": lambda: an(64),
        "binance_testnet_secret": lambda: an(64),
        "kraken_private_key": lambda: pick(AN + "+/", 56),
        "okx_passphrase": uid,
        "okx_secret": uid,
        "bybit_api_secret": lambda: an(18),
        "kucoin_passphrase": lambda: hx(24),
        "kucoin_secret": lambda: hx(24),
        "coinbase_cdp_private_key": uid,
        "gemini_api_secret": lambda: an(20),
        "thegraph_api_key": lambda: b58(44),
        "fireblocks_api_private_key": uid,
        "aws_secret_for_kms_signer": lambda: up(16),
        "alchemy_webhook_signing_key": lambda: an(12),
    }

    B = [
        (
            "eth_address",
            addr,
            [
                "deployer address is {v} (keys in the hardware wallet)",
                "send the 0.2 ETH refund to {v}",
                "FEE_RECIPIENT={v}",
            ],
        ),
        (
            "tx_hash_64hex",
            lambda: "0x" + hx(64),
            [
                "upgrade tx: {v} (block {n}) - proxy now points at v2",
                "failed liquidation, tx hash {v}, reverted with 'HF > 1'",
                "TX={v}\ncast run $TX --rpc-url $RPC  # to trace",
            ],
        ),
        (
            "block_hash",
            lambda: "0x" + hx(64),
            [
                "reorg at height {n}: old block hash {v}",
                'indexer checkpoint: {{"number": {n}, "hash": "{v}"}}',
                "finalized block hash after the incident: {v}",
            ],
        ),
        (
            "event_topic0",
            lambda: "0x" + hx(64),
            [
                "topic0 for our custom event OrderFilled(bytes32,address,uint256) = {v}",
                "filter logs by topics[0] == {v}",
                "event signature hash (keccak of the decl) {v}",
            ],
        ),
        (
            "eip1967_impl_slot",
            lambda: "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc",
            [
                "cast storage {a} {v}  # read EIP-1967 implementation slot",
                "impl slot = {v} (bytes32(uint256(keccak256('eip1967.proxy.implementation')) - 1))",
                "proxy check: storage at {v} should hold the v3 impl {a}",
            ],
        ),
        (
            "storage_slot_value",
            lambda: "0x" + "0" * 24 + hx(40),
            [
                "cast storage returned {v} at slot 0 -> owner is the Safe",
                "slot 5 of the vault: {v} (padded address of the oracle)",
                "eth_getStorageAt -> {v}",
            ],
        ),
        (
            "function_selector",
            lambda: r.choice(
                ["0xa9059cbb", "0x095ea7b3", "0x23b872dd", "0x70a08231", "0x18160ddd"]
            ),
            [
                "calldata starts with {v}; that's the ERC20 selector we whitelist in the guard",
                "selector {v} shows up in the mempool filter list",
                "guard allows only selector {v} to target {a}",
            ],
        ),
        (
            "erc20_calldata",
            lambda: "0xa9059cbb" + "0" * 24 + hx(40) + "0" * 40 + hx(24),
            [
                "decoded calldata {v} = transfer(to, amount)",
                "pending Safe tx data: {v}",
                "raw input of the stuck tx: {v}",
            ],
        ),
        (
            "contract_abi_fragment",
            lambda: "0x" + hx(64),
            [
                'ABI: [{{"type":"function","name":"setSecret","inputs":[{{"name":"secretHash","type":"bytes32"}}]}}]\ncommit hash used in test: {v}',
                "abi item: function commit(bytes32 secretHash) external; we called it with {v} (hash, reveal later)",
                "event KeyRotated(bytes32 indexed keyHash) emitted keyHash={v}",
            ],
        ),
        (
            "ens_name",
            lambda: r.choice(WORDS) + r.choice(WORDS) + ".eth",
            [
                "treasury ENS: {v} resolves to the 3/5 Safe",
                "set reverse record for the bot to {v}",
                "ens {v} -> {a}",
            ],
        ),
        (
            "secp256k1_pubkey_uncompressed",
            lambda: "0x04" + hx(128),
            [
                "signer public key (uncompressed) {v} - address derives from keccak of this",
                "KMS key GetPublicKey -> {v}",
                "recovered pubkey from sig: {v}",
            ],
        ),
        (
            "secp256k1_pubkey_compressed",
            lambda: r.choice(["02", "03"]) + hx(64),
            [
                "lightning node pubkey {v}@203.0.113.7:9735",
                "compressed public key for account 0: {v}",
                "multisig redeem script key #1: {v}",
            ],
        ),
        (
            "xpub",
            lambda: "xpub6" + b58(106),
            [
                "watch-only wallet xpub for the donation page: {v}",
                "BTCPay store derivation scheme: {v}",
                "account xpub (public, safe to share with the accountant): {v}",
            ],
        ),
        (
            "zpub",
            lambda: "zpub6" + b58(106),
            [
                "sparrow watch-only import zpub {v}",
                "native segwit account zpub {v}",
                "give the auditor this zpub: {v}",
            ],
        ),
        (
            "btc_bech32_address",
            lambda: "bc1q" + pick(BECH, 38),
            [
                "cold storage receive address {v}",
                "BTC deposit address on the exchange: {v}",
                "payout to {v} every friday",
            ],
        ),
        (
            "btc_legacy_address",
            lambda: "1" + b58(33),
            [
                "old donation address {v} (p2pkh)",
                "sweep target {v}",
                "exchange withdrawal whitelist: {v}",
            ],
        ),
        (
            "btc_txid",
            lambda: hx(64),
            [
                "btc withdrawal txid {v} has 3 confirmations",
                "bitcoin-cli gettransaction {v}",
                "RBF bumped, new txid {v}",
            ],
        ),
        (
            "solana_pubkey",
            lambda: b58(44),
            [
                "program id {v} (anchor deploy output)",
                "sniper wallet pubkey: {v}",
                "token mint {v}, decimals 6",
            ],
        ),
        (
            "solana_tx_signature",
            lambda: b58(88),
            [
                "solana swap confirmed, signature {v}",
                "solscan.io/tx/{v}",
                "jito bundle landed; tx sig {v}",
            ],
        ),
        (
            "cosmos_address",
            lambda: r.choice(["cosmos1", "osmo1", "dydx1"]) + pick(BECH, 38),
            [
                "relayer address {v} needs gas top-up",
                "delegator {v}",
                "ibc transfer receiver {v}",
            ],
        ),
        (
            "nostr_npub",
            lambda: "npub1" + pick(BECH, 58),
            [
                "follow the bot on nostr: {v}",
                "nip-05 maps alice to {v}",
                "bot public key npub: {v}",
            ],
        ),
        (
            "lightning_invoice",
            lambda: "lnbc" + str(r.randint(1, 900)) + "u1p" + pick(BECH, 200),
            [
                "invoice to pay for the relay subscription: {v}",
                "LN invoice from the vendor (expires in 1h): {v}",
                "decodepay {v}",
            ],
        ),
        (
            "bls_validator_pubkey",
            lambda: "0x" + r.choice("89ab") + hx(95),
            [
                "validator {n} pubkey {v} - slashing protection exported",
                "beaconcha.in/validator/{v}",
                "added to the fee-recipient map: {v}",
            ],
        ),
        (
            "withdrawal_credentials",
            lambda: "0x01" + "0" * 22 + hx(40),
            [
                "withdrawal credentials set to {v}",
                "deposit_data.json withdrawal_credentials: {v}",
                "0x01 creds {v} point at the Safe",
            ],
        ),
        (
            "deposit_data_root",
            lambda: hx(64),
            [
                "deposit_data_root {v} matched what the launchpad showed",
                '"deposit_data_root": "{v}"',
                "launchpad verify: root {v} OK",
            ],
        ),
        (
            "enode_url",
            lambda: (
                "enode://" + hx(128) + "@" + f"10.0.{r.randint(0, 255)}.{r.randint(1, 254)}:30303"
            ),
            [
                "static peer for the archive node: {v}",
                'admin.addPeer("{v}")',
                'bootnodes = ["{v}"]',
            ],
        ),
        (
            "libp2p_peer_id",
            lambda: "16Uiu2HAm" + b58(44),
            [
                "lighthouse peer id {v}",
                "--trusted-peers {v}",
                "prysm node id {v} keeps dropping",
            ],
        ),
        (
            "keystore_filename",
            lambda: (
                "UTC--2024-0"
                + str(r.randint(1, 9))
                + "-1"
                + str(r.randint(0, 9))
                + "T08-21-40.118Z--"
                + hx(40)
            ),
            [
                "keystore file {v} is on the yubikey-encrypted USB only",
                "geth --unlock uses {v} from the keystore dir; password comes from the HSM prompt",
                "backup list: {v}",
            ],
        ),
        (
            "keystore_uuid_and_salt",
            lambda: hx(64),
            [
                "keystore kdfparams: n=262144 r=8 p=1 salt={v} (salt is not secret)",
                "scrypt salt in the keystore json: {v}",
                "cipherparams iv {k} / kdf salt {v}",
            ],
        ),
        (
            "derivation_path",
            lambda: f"m/44'/60'/0'/0/{r.randint(0, 40)}",
            [
                "bot uses account at {v}",
                "ledger live path {v}",
                "derive keeper address from path {v} on the Trezor",
            ],
        ),
        (
            "bip39_test_vector",
            lambda: (
                "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
            ),
            [
                'unit test uses the BIP39 test vector mnemonic "{v}" (publicly known, never fund it)',
                "fixtures/wallet.ts: MNEMONIC = '{v}' // standard test vector",
                "the famous all-zero-entropy phrase {v} is fine for local tests only",
            ],
        ),
        (
            "hardhat_default_mnemonic",
            lambda: "test test test test test test test test test test test junk",
            [
                "anvil default mnemonic: {v} - accounts are public, don't send real funds",
                "local devnet seeded with '{v}'",
                'hardhat node prints accounts from "{v}"',
            ],
        ),
        (
            "hardhat_default_account_key",
            lambda: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
            [
                "anvil account #0 (well-known public dev key, local chain 31337 only): {v}",
                "for local fork tests we impersonate with the default anvil key {v} - every tutorial prints it",
                "DEV_ONLY_KEY={v} # hardhat/anvil account 0, published in their docs",
            ],
        ),
        (
            "private_key_placeholder",
            lambda: r.choice(
                [
                    "0xYOUR_PRIVATE_KEY",
                    "<your-private-key>",
                    "0x" + "0" * 64,
                    "0x" + "x" * 64,
                    "REPLACE_WITH_DEPLOYER_KEY",
                ]
            ),
            [
                ".env.example:\nPRIVATE_KEY={v}\nRPC_URL=https://eth-mainnet.g.alchemy.com/v2/<key>",
                "README says set PRIVATE_KEY={v} before running deploy",
                'template config: signer_key: "{v}"',
            ],
        ),
        (
            "mnemonic_placeholder",
            lambda: r.choice(
                [
                    "word1 word2 word3 ... word12",
                    "<twelve word seed phrase>",
                    "YOUR MNEMONIC HERE",
                    "${MNEMONIC}",
                ]
            ),
            [
                'MNEMONIC="{v}"  # example only',
                "docs snippet: new HDWallet('{v}')",
                "onboarding note: put {v} in .env, never commit",
            ],
        ),
        (
            "etherscan_doc_placeholder",
            lambda: "YourApiKeyToken",
            [
                "https://api.etherscan.io/api?module=account&action=balance&address={a}&apikey={v}",
                "the etherscan docs example uses apikey={v} - replace with ours from the vault",
                "curl '...&apikey={v}' works for a few calls/day without a real key",
            ],
        ),
        (
            "cmc_sandbox_key",
            lambda: "b54bcf4d-1bca-4e8e-9a24-22ff2c3d462c",
            [
                "CMC sandbox (public test key from their docs, fake data): {v}",
                "sandbox-api.coinmarketcap.com accepts the documented key {v}",
                "tests hit the CMC sandbox with its published key {v}",
            ],
        ),
        (
            "env_var_reference",
            lambda: r.choice(
                [
                    "${BINANCE_API_SECRET}",
                    "$KRAKEN_PRIVATE_KEY",
                    "os.environ['OKX_SECRET_KEY']",
                    "process.env.DEPLOYER_PRIVATE_KEY",
                    "{{ secrets.ALCHEMY_KEY }}",
                ]
            ),
            [
                "bot.yaml: exchange: binance\n  api_secret: {v}\n  pair: ETH/USDT",
                "signer = Wallet({v}, provider)",
                "CI step env: KEY: {v}",
            ],
        ),
        (
            "vault_reference",
            lambda: r.choice(
                [
                    "op://trading/binance-mm/secret",
                    "vault:secret/data/bots/okx#passphrase",
                    "arn:aws:secretsmanager:eu-west-1:"
                    + digits(12)
                    + ":secret:kraken-api-"
                    + an(6),
                    "gcp-sm://projects/mm-prod/secrets/hl-agent-key/versions/3",
                ]
            ),
            [
                "exchange secret now lives at {v}, loaded at boot",
                "rotated; new value stored in {v} (not here)",
                "signer key ref: {v}",
            ],
        ),
        (
            "secrets_mount_path",
            lambda: r.choice(
                [
                    "/run/secrets/validator_password",
                    "/var/lib/lighthouse/secrets/keystore-pass.txt",
                    "/etc/chainlink/.password",
                    "/secrets/jwt.hex",
                ]
            ),
            [
                "docker compose mounts {v} read-only into the container",
                "password file path: {v} (chmod 400)",
                "check perms on {v} after deploy",
            ],
        ),
        (
            "redacted_private_key",
            lambda: "0x" + hx(4) + "…" + hx(4),
            [
                "leaked key in PR #412 was {v} (redacted) - already rotated, funds moved",
                "signer key fingerprint {v}, full key in HSM",
                "keeper pk {v} [REDACTED]",
            ],
        ),
        (
            "redacted_exchange_secret",
            lambda: an(4) + "*" * 20 + an(4),
            [
                "Binance UI shows secret as {v} after creation - can't view again",
                "bybit secret {v} (masked in logs)",
                "logger masks: api_secret={v}",
            ],
        ),
        (
            "exchange_key_suffix_revoked",
            lambda: an(6),
            [
                "deleted the Binance API key ending in {v} on 2026-11-30",
                "kraken key ...{v} revoked after the phishing scare",
                "OKX key suffix {v} disabled; replaced, new one in vault",
            ],
        ),
        (
            "coinbase_key_name",
            lambda: "organizations/" + uid() + "/apiKeys/" + uid(),
            [
                "CDP key name (identifier, the private key is in 1Password): {v}",
                "api key name {v} has view+trade scopes",
                "KEY_NAME={v}\nKEY_SECRET=op://trading/cdp/private_key",
            ],
        ),
        (
            "walletconnect_project_id_public",
            lambda: hx(32),
            [
                "WalletConnect cloud projectId (shipped in the frontend bundle, domain-allowlisted): {v}",
                "NEXT_PUBLIC_WC_PROJECT_ID={v}",
                "reown projectId {v} is public by design",
            ],
        ),
        (
            "public_rpc_no_key",
            lambda: r.choice(
                [
                    "https://cloudflare-eth.com",
                    "https://rpc.ankr.com/eth",
                    "https://eth.llamarpc.com",
                    "https://ethereum-rpc.publicnode.com",
                    "https://mainnet.base.org",
                    "https://api.mainnet-beta.solana.com",
                ]
            ),
            [
                "fallback rpc (public, no key): {v}",
                "RPC_URL={v}",
                "chainlist says {v} is rate limited but free",
            ],
        ),
        (
            "infura_url_placeholder",
            lambda: r.choice(
                [
                    "https://mainnet.infura.io/v3/YOUR-PROJECT-ID",
                    "https://eth-mainnet.g.alchemy.com/v2/<ALCHEMY_KEY>",
                    "https://mainnet.infura.io/v3/${INFURA_ID}",
                    "https://xxx-yyy-zzz.quiknode.pro/<token>/",
                ]
            ),
            [
                "docs: RPC_URL={v}",
                "config template uses {v}",
                "swap in your key: {v}",
            ],
        ),
        (
            "ipfs_cid",
            lambda: r.choice(
                ["Qm" + b58(44), "bafybei" + pick("abcdefghijklmnopqrstuvwxyz234567", 52)]
            ),
            [
                "NFT metadata pinned at ipfs://{v}",
                "frontend build CID {v}",
                "baseURI updated to ipfs://{v}/",
            ],
        ),
        (
            "merkle_root",
            lambda: "0x" + hx(64),
            [
                "airdrop merkle root {v} set on the distributor",
                "MERKLE_ROOT={v}",
                "allowlist root (public, on-chain) {v}",
            ],
        ),
        (
            "domain_separator",
            lambda: "0x" + hx(64),
            [
                "EIP-712 DOMAIN_SEPARATOR for the vault on chain 1: {v}",
                "permit typehash check: domainSeparator() -> {v}",
                "domain separator mismatch: expected {v}",
            ],
        ),
        (
            "init_code_hash",
            lambda: "0x" + hx(64),
            [
                "pair INIT_CODE_HASH {v} for our univ2 fork",
                "create2 init code hash: {v}",
                "INIT_CODE_PAIR_HASH = {v}",
            ],
        ),
        (
            "git_commit_sha",
            lambda: hx(40),
            [
                "contracts audited at commit {v}",
                "bot v1.8 deployed from {v}",
                "pinned forge-std to {v}",
            ],
        ),
        (
            "binary_sha256",
            lambda: hx(64),
            [
                "geth-linux-amd64-1.14.11 sha256 {v} matches the release page",
                "lighthouse tarball checksum: {v}",
                "sha256sum reth = {v}",
            ],
        ),
        (
            "docker_digest",
            lambda: "sha256:" + hx(64),
            [
                "signer image pinned: ghcr.io/acme/signer@{v}",
                "web3signer:24.6.0 digest {v}",
                "k8s: image: prysm@{v}",
            ],
        ),
        (
            "pgp_fingerprint",
            lambda: " ".join(up(4) for _ in range(10)),
            [
                "release signer PGP fingerprint {v}",
                "verify the geth tarball against key {v}",
                "gpg --recv-keys, fingerprint {v}",
            ],
        ),
        (
            "safe_multisig_setup",
            addr,
            [
                "treasury Safe {v}: threshold 3 of 5, owners are hardware wallets",
                "Safe setup -> owners [{a}, ...], threshold 2, Safe address {v}",
                "multisig {v} needs one more confirmation for nonce {n}",
            ],
        ),
        (
            "token_contract_address",
            addr,
            [
                "USDC token address on the fork: {v}",
                "reward token {v} (18 decimals)",
                "add token {v} to the allowlist",
            ],
        ),
        (
            "faucet_info",
            addr,
            [
                "sepolia faucet: https://sepoliafaucet.example/ - drips to {v} once a day",
                "request testnet ETH for {v} from the PoW faucet",
                "holesky faucet sent 1 ETH to {v}",
            ],
        ),
        (
            "key_talk_no_value",
            lambda: "",
            [
                "never paste the exchange API secret into the chat; the bot reads it from the env at runtime",
                "todo: rotate the Kraken private key and the OKX passphrase before the audit on friday",
                "the deployer seed phrase is on steel plates in two safes; nobody has it digitally",
            ],
        ),
        (
            "api_permissions_note",
            lambda: r.choice(
                ["enableWithdrawals=false", "ipRestrict=true", "permissions: [READ, TRADE]"]
            ),
            [
                "binance key settings: {v}, futures on",
                "checked the new API key: {v}",
                "exchange api scopes for the mm bot -> {v}",
            ],
        ),
        (
            "bot_config_no_secrets",
            lambda: str(r.randint(2, 20)) + "x",
            [
                "strategy: grid\npair: ETH/USDT\nleverage: {v}\nsecret_source: env",
                "freqtrade config: dry_run true, stake 100 USDT, max leverage {v}",
                "hummingbot pmm: spread 0.2%, order_refresh 15s, leverage {v}",
            ],
        ),
        (
            "token_sense_erc20",
            lambda: r.choice(["WETH", "USDC", "LINK", "ARB", "stETH"]),
            [
                "token approval for {v} to the router was set to max - revoke after the swap",
                "token list: add {v} with logo ipfs",
                "bridge token {v} to base",
            ],
        ),
        (
            "secret_sense_protocol",
            lambda: "0x" + hx(64),
            [
                "HTLC hashlock (sha256 of the preimage, published on-chain): {v}",
                "commit-reveal: commitment {v} submitted, reveal window opens block {n}",
                "shamir secret sharing: 3-of-5 shares, share ids listed; share hash {v}",
            ],
        ),
        (
            "gas_and_nonce",
            lambda: str(r.randint(10, 90)) + " gwei",
            [
                "stuck at nonce {n}, resend with maxFeePerGas {v}",
                "priority fee {v} for the liquidation",
                "gas price cap {v}",
            ],
        ),
        (
            "validator_index_and_slot",
            lambda: str(r.randint(100000, 1900000)),
            [
                "validator index {v} missed attestations at slot {n}",
                "proposal duty for {v}",
                "exit validator {v} queued",
            ],
        ),
        (
            "request_id_hex",
            lambda: hx(32),
            [
                "alchemy support ticket id {v}",
                "x-request-id {v} for the failed eth_call",
                "trace id {v} in datadog",
            ],
        ),
        (
            "chainlink_job_id",
            uid,
            [
                "chainlink job externalJobID {v}",
                "oracle job spec id {v}",
                "feed adapter job {v} paused",
            ],
        ),
        (
            "subgraph_deployment_id",
            lambda: "Qm" + b58(44),
            [
                "subgraph deployment {v} synced",
                "graph-node: deployment {v} failed at block {n}",
                "query the deployment {v}",
            ],
        ),
        (
            "abi_json_snippet",
            lambda: r.choice(["approve", "permit", "transferFrom"]),
            [
                'abi: [{{"name":"{v}","type":"function","inputs":[{{"name":"spender","type":"address"}},{{"name":"value","type":"uint256"}}]}}]',
                "function {v}(address spender, uint256 value) external returns (bool);",
                "interface IToken {{ function {v}(address, uint256) external; }}",
            ],
        ),
        (
            "revoked_infura_key",
            lambda: hx(32),
            [
                "old infura project key {v} - project deleted 2025-02-14, returns 401 now",
                "revoked and deleted: etherscan-style key {v} (account closed)",
                "rotated out: {v}; the project no longer exists on infura",
            ],
        ),
        (
            "signature_public",
            lambda: "0x" + hx(130),
            [
                "signature of the release manifest (public, verifies against {a}): {v}",
                "ECDSA sig on the published audit report hash: {v}",
                "the attestation signature in the EAS record is {v}",
            ],
        ),
    ]

    rows: list[dict] = []
    for label, table in (("secret", S), ("benign", B)):
        for kind, gen, templates in table:
            for tmpl in templates:
                v = gen()
                k = KGEN.get(kind, lambda: hx(32))()
                text = tmpl.format(v=v, k=k, k2=uid(), a=addr(), n=r.randint(1000, 21000000))
                assert v in text, (kind, tmpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    r.shuffle(rows)
    return rows


def main() -> None:
    out = "\n".join(json.dumps(row, ensure_ascii=False) for row in corpus()) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
