from msgcli.cli import main

main()
